#include "backend/redis_cluster/redis_cluster_backend.hpp"

#include <variant>

#include "backend/redis/redis_consumers.hpp"
#include "backend/redis/redis_job_admin.hpp"
#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_writers.hpp"
#include "redis/cluster_client.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// The consumers, their maintenance and the queue commands talk to the node that owns the queue's slot, found
// when they open: they are the Redis backend's, pointed at that node. A slot that moves while they run is
// not followed (a consumer's command then fails with MOVED and the run ends saying so).
RedisConsumerTarget on_slot_owner(const ConsumerOptions& options) {
    RedisConsumerTarget target = redis_consumer_target(options);
    std::vector<std::string> keys = redis::consumer_ready_lists(target.queue);
    keys.push_back(redis::delayed_key(target.queue.delayed_key, target.queue.queue));
    const std::uint16_t slot = redis::consumer_queue_slot(target.queue.queue, keys);
    // The cluster's seeds, with the timeouts, retry budget and stop flag of the source's typed connection.
    redis::ClusterOptions cluster = redis::ClusterOptions::from_url(options.source.url);
    for (RedisOptions& seed : cluster.seeds) {
        static_cast<ServerTimeouts&>(seed) = static_cast<const ServerTimeouts&>(target.connection);
        seed.stop = target.connection.stop;
    }
    target.connection = redis::ClusterClient::connect_at_start(cluster).owner_options(slot);
    return target;
}

class RedisClusterBackend final : public RedisConsumersBackend {
public:
    RedisClusterBackend()
        : RedisConsumersBackend({.form = "redis-cluster://[user:pass@]host:port[,host:port...]/",
                   .what = "a Redis Cluster",
                   .traits = {.takes_queue = true, .redis_keys = true, .worker_formats = true, .keeps_jobs = true},
                   .queue_meaning =
                       "the Redis list name with a hash tag, e.g. '{orders}', also the prefix of its other keys"}) {}

    void parse_target(const SinkSpec& spec) const override { cluster_target(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override { return make_cluster_sink(cluster_target(spec)); }

    void check_key_names(const SinkSpec& spec, const std::string* state_prefix) const override {
        const RedisQueueKeys keys = redis_queue_keys(spec);
        const redis::PushPlan plan(keys);
        const std::uint16_t slot = redis::queue_slot(keys, plan);
        if (!state_prefix) return;
        redis::check_state_prefix(*state_prefix);
        redis::cluster_state_prefix(*state_prefix, keys.queue, slot);
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        redis::check_state_prefix(definition.state_prefix);
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

private:
    RedisConsumerTarget consumer_target(const ConsumerOptions& options) const override {
        return on_slot_owner(options);
    }
};

}  // namespace

const Backend& redis_cluster_backend() { return the_backend<RedisClusterBackend>(); }

}  // namespace rowpump
