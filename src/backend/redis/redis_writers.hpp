#pragma once
// What the Redis backend opens for a target; both connect with its options (the spec's timeouts, retry
// budget and stop flag).
#include <memory>

#include "checkpoint/job_store.hpp"
#include "backend/redis/redis_target.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_redis_sink(RedisTarget target);
std::unique_ptr<JobStore> open_redis_job_store(RedisTarget target, const JobDefinition& definition);

}  // namespace rowpump
