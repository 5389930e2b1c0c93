#pragma once
// What the Redis backend opens for a target; both connect with its options (the spec's timeouts, retry
// budget and stop flag).
#include <memory>

#include "checkpoint/job_store.hpp"
#include "backend/redis/redis_queue_writer.hpp"
#include "backend/redis/redis_target.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_redis_sink(RedisTarget target);
// The sink over another writer's keys (a stream's): `destination` names them in describe().
std::unique_ptr<Sink> make_redis_sink(const RedisTarget& target, std::unique_ptr<redis::QueueWriter> writer,
                                      std::string destination);
// The job store over the queue's lists (PageWriter).
std::unique_ptr<JobStore> open_redis_job_store(RedisTarget target, const JobDefinition& definition);
// The job store over the keys of `make_writer`'s writers (a stream's, backend/redis_streams/): the same
// ranges, leases, splits and fenced pages.
std::unique_ptr<JobStore> open_redis_job_store(RedisTarget target, const JobDefinition& definition,
                                               redis::QueueWriterFactory make_writer);

// BullMQ's keys for a queue (bullmq_page_writer.hpp): its sink, and the job store over its page writer.
std::unique_ptr<Sink> make_bullmq_sink(const RedisTarget& target);
std::unique_ptr<JobStore> open_bullmq_job_store(const RedisTarget& target, const JobDefinition& definition);

}  // namespace rowpump
