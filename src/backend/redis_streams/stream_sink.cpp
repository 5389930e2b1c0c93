// A Redis stream written with pipelined XADDs, one entry a row (stream_commands.hpp).
#include "backend/redis/redis_wait.hpp"
#include "backend/redis_streams/stream_page_writer.hpp"
#include "backend/redis_streams/stream_writers.hpp"
#include "redis/connection.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

class StreamSink final : public Sink {
public:
    explicit StreamSink(const StreamTarget& target)
        : writer_(target),
          wait_(target.redis.wait),
          connection_(redis::Connection::connect_at_start(target.redis.connection)) {
        connection_.retrying([this] { writer_.check_key_types(connection_); });
    }

    void write(const std::vector<Message>& batch) override {
        if (batch.empty()) return;
        // A retry after a partly sent pipeline adds the whole batch again (at-least-once, as the lists'
        // sink): XADD * gives each attempt new ids. Exactly once takes a job id (the fenced ledger).
        connection_.retrying([&] { writer_.write(connection_, batch, {}, nullptr); });
        try {
            redis::wait_for_replicas(connection_, wait_, batch.size(), false);
        } catch (const QueueError& error) {
            if (!error.is_transient()) throw;
            throw QueueError(std::string(error.what()) + " (while waiting for replicas, --redis-wait)", false);
        }
    }

    void keep_alive() override {
        try {
            connection_.command({"PING"});
        } catch (const Error&) {
            // The next write reconnects, within its retry budget.
        }
    }

    std::optional<std::uint64_t> ready_count() override {
        return connection_.retrying([this] { return std::optional<std::uint64_t>(writer_.ready_count(connection_)); });
    }

    std::string describe() const override { return connection_.options().redacted() + " stream " + writer_.key(); }

private:
    redis::StreamPageWriter writer_;
    RedisReplicaWait wait_;
    redis::Connection connection_;
};

}  // namespace

std::unique_ptr<Sink> make_stream_sink(const StreamTarget& target) { return std::make_unique<StreamSink>(target); }

std::unique_ptr<JobStore> open_stream_job_store(const StreamTarget& target, const JobDefinition& definition) {
    return open_redis_job_store(target.redis, definition,
                                [target] { return std::make_unique<redis::StreamPageWriter>(target); });
}

}  // namespace rowpump
