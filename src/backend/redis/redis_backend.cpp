#include "backend/redis/redis_backend.hpp"

#include "backend/redis/bullmq_page_writer.hpp"
#include "backend/redis/redis_consumers.hpp"
#include "backend/redis/redis_job_admin.hpp"
#include "backend/redis/redis_key_traits.hpp"
#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis/redis_writers.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

class RedisBackend final : public RedisConsumersBackend {
public:
    RedisBackend()
        : RedisConsumersBackend({.form = "redis://[user:pass@]host:port/db (or rediss://, redis+unix://, redis-sentinel://)",
                   .what = "a Redis server",
                   .traits = redis_key_traits({.worker_formats = true, .waits_for_replicas = true}),
                   .queue_meaning = "the Redis list name, also the prefix of its other keys"}) {}

    void parse_target(const SinkSpec& spec) const override { redis_target(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override {
        if (spec.layout == QueueLayout::bullmq) return make_bullmq_sink(redis_target(spec));
        return make_redis_sink(redis_target(spec));
    }

    void check_key_names(const SinkSpec& spec, const std::string* state_prefix) const override {
        // Each throws UsageError for names it cannot write.
        if (spec.layout == QueueLayout::bullmq) {
            const redis::BullmqPageWriter writer(redis_queue_keys(spec));
        } else {
            const redis::PushPlan plan(redis_queue_keys(spec));
        }
        if (state_prefix) redis::check_state_prefix(*state_prefix);
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        redis::check_state_prefix(definition.state_prefix);
        if (spec.layout == QueueLayout::bullmq) return open_bullmq_job_store(redis_target(spec), definition);
        return open_redis_job_store(redis_target(spec), definition);
    }

    std::unique_ptr<JobAdmin> open_job_admin(const SinkSpec& spec, const std::string& state_prefix) const override {
        redis::check_state_prefix(state_prefix);
        return open_redis_job_admin(redis_target(spec).connection, state_prefix);
    }

    QueueSource parse_source(const QueueSource& source) const override {
        QueueSource typed = source;
        typed.connection = source_redis_options(source);
        return typed;
    }

private:
    RedisConsumerTarget consumer_target(const ConsumerOptions& options) const override {
        return redis_consumer_target(options);
    }
};

}  // namespace

const Backend& redis_backend() { return the_backend<RedisBackend>(); }

}  // namespace rowpump
