#include "backend/redis_cluster/redis_cluster_backend.hpp"

#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_writers.hpp"
#include "redis/cluster_client.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

class RedisClusterBackend final : public Backend {
public:
    std::string_view form() const override { return "redis-cluster://[user:pass@]host:port[,host:port...]/"; }
    std::string_view what() const override { return "a Redis Cluster"; }
    BackendTraits traits() const override {
        return {.takes_queue = true, .redis_keys = true, .worker_formats = true, .keeps_jobs = true};
    }
    std::string_view queue_meaning() const override {
        return "the Redis list name with a hash tag, e.g. '{orders}', also the prefix of its other keys";
    }

    void parse_target(const SinkSpec& spec) const override { redis::ClusterOptions::from_url(spec.uri); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override { return make_cluster_sink(spec); }

    void check_key_names(const SinkSpec& spec, const std::string* state_prefix) const override {
        const redis::PushPlan plan(spec);
        const std::uint16_t slot = redis::queue_slot(spec, plan);
        if (!state_prefix) return;
        redis::check_state_prefix(*state_prefix);
        redis::cluster_state_prefix(*state_prefix, spec.queue, slot);
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        redis::check_state_prefix(definition.state_prefix);
        return open_cluster_job_store(spec, definition);
    }

    // The consumers talk to the node that owns the queue's slot, found once when they start.
    RedisOptions redis_server(const std::string& uri, const RedisQueueOptions& queue) const override {
        std::vector<std::string> keys;
        for (const std::string& level : queue.priority_lists) keys.push_back(redis::list_key(queue.list_key, queue.queue, level));
        keys.push_back(redis::delayed_key(queue.delayed_key, queue.queue));
        const std::uint16_t slot = redis::consumer_queue_slot(queue.queue, keys);
        return redis::ClusterClient::connect_at_start(redis::ClusterOptions::from_url(uri)).owner_options(slot);
    }
};

}  // namespace

const Backend& redis_cluster_backend() {
    static const RedisClusterBackend backend;
    return backend;
}

}  // namespace rowpump
