#pragma once
// The jobs kept in one Redis database under one state prefix, for `rowpump job`: found by SCAN (a job is
// its key PREFIX<id>:meta), read by pipelined HMGETs, removed in one MULTI/EXEC under WATCH.
#include <memory>
#include <string>

#include "checkpoint/job_admin.hpp"
#include "rowpump/options.hpp"

namespace rowpump {

// Connects at once (one attempt: an unreachable server is a UsageError).
std::unique_ptr<JobAdmin> open_redis_job_admin(const RedisOptions& connection, std::string state_prefix);

}  // namespace rowpump
