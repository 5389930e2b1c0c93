#pragma once
// --redis-wait N[:timeout_ms]: a page counts as written once N replicas have it (Redis WAIT), so that a
// failover to one of them cannot lose it. docs/DESIGN.md, "Durability of Redis".
#include <cstddef>
#include <string>

#include "redis/connection.hpp"
#include "backend/redis/redis_target.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::redis {

// Sets sink.redis_only.wait_replicas and wait_timeout from "N" or "N:timeout_ms". Throws UsageError.
void parse_redis_wait(const std::string& text, SinkSpec& sink);

// WAIT for the pages this session wrote. Returns when wait.replicas replicas have them (at once when it
// is 0); otherwise throws a QueueError, transient when `retried` (a job's page, which its
// retry finds committed and waits for again), final when not (a plain page, whose retry would push it twice).
void wait_for_replicas(Connection& connection, const RedisReplicaWait& wait, std::size_t rows, bool retried);

}  // namespace rowpump::redis
