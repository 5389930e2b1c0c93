#pragma once
// What the stream backend opens for a target: its sink, and the Redis job store over its page writer (the
// lists' ranges, leases and fences, the XADDs in each page's MULTI/EXEC).
#include <memory>

#include "backend/redis/redis_writers.hpp"
#include "backend/redis_streams/stream_target.hpp"
#include "checkpoint/job_store.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_stream_sink(const StreamTarget& target);
std::unique_ptr<JobStore> open_stream_job_store(const StreamTarget& target, const JobDefinition& definition);

}  // namespace rowpump
