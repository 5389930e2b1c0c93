#pragma once
// A Redis Cluster sink's target, read from its SinkSpec once: the URL's nodes with the spec's timeouts,
// retry budget and stop flag, and the Redis backend's queue keys and WAIT (redis_target.hpp). Its sink and
// job store take this, never the spec.
#include <utility>

#include "backend/redis/redis_target.hpp"
#include "redis/cluster_options.hpp"
#include "rowpump/options.hpp"

namespace rowpump {

struct ClusterTarget {
    redis::ClusterOptions cluster;  // each seed with the spec's timeouts, retry budget and stop flag
    RedisQueueKeys keys;
    RedisReplicaWait wait;
    std::size_t shards = 0;  // --shards: the queue spread over this many slots (0: one queue)

    // The Redis backend's target on one node of the cluster (the owner of the queue's slot).
    RedisTarget on_node(RedisOptions node) const { return {.connection = std::move(node), .keys = keys, .wait = wait}; }
};

// Throws UsageError for a malformed URL; nothing connects.
ClusterTarget cluster_target(const SinkSpec& spec);

}  // namespace rowpump
