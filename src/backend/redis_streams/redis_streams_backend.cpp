#include "backend/redis_streams/redis_streams_backend.hpp"

#include "backend/redis/redis_consumers.hpp"
#include "backend/redis/redis_key_traits.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis_streams/stream_consumers.hpp"
#include "backend/redis_streams/stream_writers.hpp"

namespace rowpump {

namespace {

class RedisStreamsBackend final : public Backend {
public:
    RedisStreamsBackend()
        : Backend({.form = "redis://[user:pass@]host:port/db with --push xadd (or rediss://, redis+unix://, "
                           "redis-sentinel://)",
                   .what = "a Redis stream",
                   .traits = redis_key_traits({.claims_expire = true, .waits_for_replicas = true}),
                   .queue_meaning = "the stream's key"}) {}

    void parse_target(const SinkSpec& spec) const override { stream_target(spec); }

    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override { return make_stream_sink(stream_target(spec)); }

    void check_key_names(const SinkSpec& spec, const std::string* state_prefix) const override {
        check_stream_spec(spec);
        if (state_prefix) redis::check_state_prefix(*state_prefix);
    }

    std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const override {
        redis::check_state_prefix(definition.state_prefix);
        return open_stream_job_store(stream_target(spec), definition);
    }

    QueueSource parse_source(const QueueSource& source) const override {
        QueueSource typed = source;
        typed.connection = source_redis_options(source);
        return typed;
    }
    void check_consumers(const ConsumerOptions& options) const override { check_stream_consumers(options); }
    std::unique_ptr<QueueConsumer> open_consumer(const ConsumerOptions& options, std::size_t worker) const override {
        return open_stream_consumer(options, worker);
    }
    std::unique_ptr<QueueMaintainer> open_maintainer(const ConsumerOptions& options,
                                                     std::vector<std::string> consumers) const override {
        return open_stream_maintainer(options, std::move(consumers));
    }
    std::unique_ptr<QueueAdmin> open_admin(const ConsumerOptions& options) const override {
        return open_stream_admin(options);
    }
};

}  // namespace

const Backend& redis_streams_backend() { return the_backend<RedisStreamsBackend>(); }

}  // namespace rowpump
