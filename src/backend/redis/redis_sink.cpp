// The Redis sink: pages written by a queue writer on one connection, then --redis-wait. The lists (and a
// sorted set for delayed tasks) are written with pipelined variadic commands; a stream's writer is another
// (backend/redis_streams/).
//
// Keys for queue Q (docs/DESIGN.md, "Queues"): ready tasks go to the list Q, or to Q:p:<name> when priority
// lists are given; delayed tasks go to the sorted set Q:delayed, scored by their due time in Unix ms.
// A sorted set keeps one member per distinct value, so each delayed payload goes in behind a tag unique
// to this sink and message (redis_delayed_member.hpp); promotion takes the tag off again.
#include <chrono>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_page_writer.hpp"
#include "backend/redis/redis_wait.hpp"
#include "redis/connection.hpp"
#include "rowpump/error.hpp"
#include "backend/redis/redis_writers.hpp"

namespace rowpump {

namespace {

class RedisSink final : public Sink {
public:
    // The options' read and write timeouts bound every wait on the socket: a server that stops answering
    // (but keeps the socket open) is retried like a lost connection, within the retry budget.
    RedisSink(std::unique_ptr<redis::QueueWriter> writer, std::string destination, const RedisTarget& target)
        : writer_(std::move(writer)),
          destination_(std::move(destination)),
          wait_(target.wait),
          connection_(redis::Connection::connect_at_start(target.connection)),
          delayed_writer_(redis::random_delayed_writer()) {
        connection_.retrying([this] { writer_->check_key_types(connection_); });
    }

    void write(const std::vector<Message>& batch) override {
        if (batch.empty()) return;
        const redis::DelayedTag first_tag{delayed_writer_, next_sequence_};
        next_sequence_ += batch.size();
        // A retry after a partly sent pipeline sends the whole batch again: ready messages the server
        // already took are pushed twice (a stream's XADD * gives each attempt new ids). That is the
        // at-least-once promise of docs/DESIGN.md ("Delivery guarantees"); exactly-once needs the job-state
        // path (MULTI/EXEC), not this one. Delayed ones keep their tags, so the retry only re-scores those
        // already in the set (unless promoted meanwhile).
        connection_.retrying([&] { writer_->write(connection_, batch, first_tag, nullptr); });
        try {
            redis::wait_for_replicas(connection_, wait_, batch.size(), false);
        } catch (const QueueError& error) {
            // A lost connection leaves unknown what the replicas have; a retry would push the page twice.
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
        return connection_.retrying([this] { return std::optional<std::uint64_t>(writer_->ready_count(connection_)); });
    }

    std::string describe() const override { return connection_.options().redacted() + " " + destination_; }

private:
    std::unique_ptr<redis::QueueWriter> writer_;
    std::string destination_;
    RedisReplicaWait wait_;
    redis::Connection connection_;
    // Tags of delayed messages: a random writer keeps the sinks of every worker and process apart; the
    // sequence counts this sink's messages.
    std::uint64_t delayed_writer_;
    std::uint64_t next_sequence_ = 0;
};

}  // namespace

std::unique_ptr<Sink> make_redis_sink(const RedisTarget& target, std::unique_ptr<redis::QueueWriter> writer,
                                      std::string destination) {
    return std::make_unique<RedisSink>(std::move(writer), std::move(destination), target);
}

std::unique_ptr<Sink> make_redis_sink(RedisTarget target) {
    // First: a bad priority list is refused before connecting.
    auto writer = std::make_unique<redis::PageWriter>(target.keys);
    const auto& keys = writer->plan().ready_keys();
    std::string destination = keys.size() == 1 ? "list " : "lists ";
    for (std::size_t i = 0; i < keys.size(); ++i) destination += (i == 0 ? "" : ", ") + keys[i];
    return make_redis_sink(target, std::move(writer), std::move(destination));
}

}  // namespace rowpump
