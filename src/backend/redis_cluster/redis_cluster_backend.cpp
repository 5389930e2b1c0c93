#include "backend/redis_cluster/redis_cluster_backend.hpp"

#include <variant>

#include "backend/redis/redis_consumers.hpp"
#include "backend/redis/redis_job_admin.hpp"
#include "backend/redis/redis_key_traits.hpp"
#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis_cluster/cluster_following.hpp"
#include "backend/redis_cluster/cluster_owner.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_shards.hpp"
#include "backend/redis_cluster/cluster_writers.hpp"
#include "redis/cluster_client.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// The consumers, their maintenance and the queue commands are the Redis backend's, on the node that owns the
// queue's slot, following the slot when it moves (cluster_following.hpp).
std::shared_ptr<redis::ClusterClient> cluster_client(const ConsumerOptions& options) {
    return std::make_shared<redis::ClusterClient>(redis::ClusterClient::connect_at_start(source_cluster(options)));
}

class RedisClusterBackend final : public Backend {
public:
    RedisClusterBackend()
        : Backend({.form = "redis-cluster://[user:pass@]host:port[,host:port...]/ (or rediss-cluster://)",
                   .what = "a Redis Cluster",
                   .traits = redis_key_traits({.worker_formats = true, .shards = true}),
                   .queue_meaning =
                       "the Redis list name with a hash tag, e.g. '{orders}', also the prefix of its other keys"}) {}

    void parse_target(const SinkSpec& spec) const override { cluster_target(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override {
        ClusterTarget target = cluster_target(spec);
        if (target.shards > 0) return make_cluster_shard_sink(target, target.shards);
        return make_cluster_sink(std::move(target));
    }

    void check_key_names(const SinkSpec& spec, const std::string* state_prefix) const override {
        const RedisQueueKeys keys = redis_queue_keys(spec);
        if (spec.redis_only.shards > 0) return check_shard_names(keys, spec.redis_only.shards, state_prefix != nullptr);
        const redis::PushPlan plan(keys);
        const std::uint16_t slot = redis::queue_slot(keys, plan);
        if (!state_prefix) return;
        redis::check_state_prefix(*state_prefix);
        redis::cluster_state_prefix(*state_prefix, keys.queue, slot);
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        redis::check_state_prefix(definition.state_prefix);
        if (spec.redis_only.shards > 0) check_shard_names(redis_queue_keys(spec), spec.redis_only.shards, true);
        return open_cluster_job_store(cluster_target(spec), definition);
    }

    // A job's keys live in its queue's slot (cluster_queue_slot.hpp), so the jobs of one queue are on the
    // node that owns it: that node is scanned, and `job` needs --queue. The jobs of other queues are not.
    std::unique_ptr<JobAdmin> open_job_admin(const SinkSpec& spec, const std::string& state_prefix) const override {
        if (spec.queue.empty())
            throw UsageError("on a Redis Cluster a job's keys live in its queue's hash slot: pass --queue NAME");
        redis::check_state_prefix(state_prefix);
        const ClusterTarget target = cluster_target(spec);
        const std::uint16_t slot = redis::queue_slot(target.keys, redis::PushPlan(target.keys));
        const std::string prefix = redis::cluster_state_prefix(state_prefix, target.keys.queue, slot);
        return open_redis_job_admin(redis::ClusterClient::connect_at_start(target.cluster).owner_options(slot), prefix);
    }

    // The typed connection is the first seed's (its login and timeouts); the URL keeps naming the cluster.
    QueueSource parse_source(const QueueSource& source) const override {
        QueueSource typed = source;
        if (!std::holds_alternative<RedisOptions>(source.connection))
            typed.connection = redis::ClusterOptions::from_url(source.url).seeds.at(0);
        else
            redis::ClusterOptions::from_url(source.url);
        return typed;
    }
    std::unique_ptr<QueueConsumer> open_consumer(const ConsumerOptions& options, std::size_t worker) const override {
        if (options.shards > 0) return open_shard_consumer(options, worker);
        return open_following_consumer(cluster_client(options), options, &worker);
    }
    std::unique_ptr<QueueMaintainer> open_maintainer(const ConsumerOptions& options,
                                                     std::vector<std::string> consumers) const override {
        if (options.shards > 0) return open_shard_maintainer(options, std::move(consumers));
        return open_following_maintainer(cluster_client(options), options, std::move(consumers));
    }
    std::unique_ptr<QueueAdmin> open_admin(const ConsumerOptions& options) const override {
        if (options.shards > 0) return open_shard_admin(options);
        return open_following_admin(cluster_client(options), options);
    }
};

}  // namespace

const Backend& redis_cluster_backend() { return the_backend<RedisClusterBackend>(); }

}  // namespace rowpump
