#pragma once
// A queue spread over N shards of a Redis Cluster (--shards N; backend/redis/redis_shards.hpp names them):
// shard i is the queue {q:i}, a whole Redis queue in its own slot. The producer sends each page whole to
// one shard (the one sent the fewest rows so far); every consumer reads all shards, from a start that
// rotates; the queue commands act on every shard and add up what they did. docs/DESIGN.md, "Redis Cluster".
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend/redis_cluster/cluster_target.hpp"
#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// The target's keys for each shard's queue (the queue's name replaced by the shard's). Throws UsageError
// for a count outside 1..1024, a queue name that cannot be sharded, and a worker format's layout.
std::vector<RedisQueueKeys> shard_keys(const RedisQueueKeys& keys, std::size_t shards);
// Throws UsageError, before anything connects, for a count outside 1..1024, a queue name that cannot be
// sharded, a worker format (Sidekiq and Celery name their own keys), and a job id (not built yet: a page
// and its checkpoint must share one slot, docs/DESIGN.md).
void check_shard_names(const RedisQueueKeys& keys, std::size_t shards, bool job);

std::unique_ptr<Sink> make_cluster_shard_sink(const ClusterTarget& target, std::size_t shards);

std::unique_ptr<QueueConsumer> open_shard_consumer(const ConsumerOptions& options, std::size_t worker);
std::unique_ptr<QueueMaintainer> open_shard_maintainer(const ConsumerOptions& options,
                                                       std::vector<std::string> consumers);
std::unique_ptr<QueueAdmin> open_shard_admin(const ConsumerOptions& options);

}  // namespace rowpump
