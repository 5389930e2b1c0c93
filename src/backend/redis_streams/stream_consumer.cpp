// A worker's consumer in a stream's consumer group, the (idle) maintenance, and the queue commands
// (backend/redis_streams/stream_consumers.hpp).
#include <unistd.h>

#include <atomic>

#include "backend/redis/redis_consumers.hpp"
#include "backend/redis_streams/stream_consumers.hpp"
#include "backend/redis_streams/stream_group.hpp"
#include "backend/redis_streams/stream_group_info.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

using std::chrono::milliseconds;

std::string consumer_name(const ConsumerOptions& options, std::size_t worker) {
    if (!options.redis.consumer.empty()) return options.redis.consumer + ":" + std::to_string(worker);
    static std::atomic<unsigned> next{0};
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return std::string(*host ? host : "localhost") + ":" + std::to_string(::getpid()) + ":" + std::to_string(next++);
}

StreamGroupOptions group_options(const ConsumerOptions& options, std::string consumer) {
    return {.stream = options.source.queue,
            .group = options.source.stream_group,
            .consumer = std::move(consumer),
            .retry = options.retry,
            .claim_timeout = options.claim_timeout};
}

class StreamConsumer final : public QueueConsumer {
public:
    StreamConsumer(const ConsumerOptions& options, std::size_t worker)
        : group_(redis_consumer_target(options).connection, group_options(options, consumer_name(options, worker))) {}

    std::vector<Task> claim(std::size_t n, milliseconds wait) override { return group_.claim(n, wait); }
    void ack(const Task& task) override {
        if (!group_.ack({task}).empty()) throw StaleClaim("its entry was claimed by another consumer meanwhile");
    }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override { return group_.ack(tasks); }
    FailOutcome fail(const Task& task, const std::string& error) override {
        return group_.fail(task, error, group_.options().retry);
    }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        return group_.fail(task, error, policy);
    }
    void release(const std::vector<Task>& tasks) override { group_.release(tasks); }
    Backlog backlog() override { return group_.backlog(); }
    ReapResult reap() override { return group_.reclaim(1000); }
    void heartbeat() override { group_.renew(); }
    void leave() override { group_.leave(); }
    std::string describe(const Task& task) const override {
        return "entry " + entry_id(task) + " (" + std::to_string(task.payload.size()) + " bytes)";
    }
    std::string name() const override { return group_.options().consumer; }

private:
    StreamGroup group_;
};

// Each consumer takes over idle entries itself, at its claims: there is nothing to beat, promote or reap.
class StreamMaintainer final : public QueueMaintainer {
public:
    ReapResult tick() override { return {}; }
};

class StreamAdmin final : public QueueAdmin {
public:
    explicit StreamAdmin(const ConsumerOptions& options)
        : redis_(redis_consumer_target(options).connection), options_(group_options(options, "rowpump-admin")) {}

    std::string init() override {
        StreamGroup group(redis_, options_);
        return "Redis stream " + options_.stream + " (" + redis_.redacted() + "): consumer group " + options_.group +
               " ready, dead entries go to " + stream_dead_key(options_.stream);
    }
    QueueStats stats(bool) override {
        redis::Connection connection = redis::Connection::connect_within(redis_);
        return connection.retrying([&] {
            const StreamGroupInfo info = read_group_info(connection, options_.stream, options_.group);
            QueueStats stats;
            stats.ready = info.waiting;
            stats.in_flight = info.pending;
            stats.dead = info.dead;
            stats.stream_length = info.length;
            stats.holders = read_group_consumers(connection, options_.stream, options_.group, options_.claim_timeout);
            return stats;
        });
    }
    StatsWords words() const override { return {"pending", "consumers", "idle_seconds"}; }
    std::string holder_line(const QueueStats::Holder& holder) const override {
        return "  consumer " + holder.name + ": " + std::to_string(holder.tasks) + " pending, idle " +
               seconds_text(holder.age_seconds) + (holder.alive ? "" : ", past the claim timeout");
    }
    ReapResult reap() override {
        throw UsageError("a stream's consumers take over idle entries themselves (XAUTOCLAIM, after "
                         "--claim-timeout): there is nothing to reap");
    }
    std::uint64_t promote() override { throw UsageError("a stream has no delayed entries to promote"); }
    std::uint64_t purge(std::chrono::seconds, std::size_t) override {
        throw UsageError("queue purge is for MySQL queue tables: trim a stream with --stream-maxlen or XTRIM");
    }
    std::uint64_t requeue_dead(std::uint64_t) override {
        throw UsageError("requeue-dead is not built for streams yet: the dead entries are in the stream " +
                         stream_dead_key(options_.stream) + ", with their fields, source_id and reason");
    }

private:
    RedisOptions redis_;
    StreamGroupOptions options_;
};

}  // namespace

void check_stream_consumers(const ConsumerOptions& options) {
    using config::OptionId;
    if (!options.redis.priority_lists.empty() || !options.redis.return_list.empty())
        throw config::OptionError({"a stream has no priority lists: drop ", OptionId::priority_lists, " and ",
                                   OptionId::return_to});
    if (options.claim_timeout.count() <= 0)
        throw config::OptionError({OptionId::claim_timeout, " must be more than 0 s: every entry would be taken over at once"});
}

std::unique_ptr<QueueConsumer> open_stream_consumer(const ConsumerOptions& options, std::size_t worker) {
    return std::make_unique<StreamConsumer>(options, worker);
}

std::unique_ptr<QueueMaintainer> open_stream_maintainer(const ConsumerOptions&, std::vector<std::string>) {
    return std::make_unique<StreamMaintainer>();
}

std::unique_ptr<QueueAdmin> open_stream_admin(const ConsumerOptions& options) {
    return std::make_unique<StreamAdmin>(options);
}

}  // namespace rowpump
