// A worker's consumer and the maintenance of a Redis queue (backend/redis/redis_consumers.hpp).
#include <algorithm>

#include "backend/forwarding_consumer.hpp"
#include "backend/queue_source.hpp"
#include "backend/redis/redis_consumers.hpp"
#include "fnv1a.hpp"
#include "log.hpp"

namespace rowpump {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Delayed tasks are promoted this often, which bounds how late past its due time a task is delivered.
constexpr milliseconds promote_interval{200};

// Heartbeats go out three times per timeout, so one late beat never expires a live consumer.
milliseconds heartbeat_interval(milliseconds heartbeat_timeout) {
    return std::clamp(heartbeat_timeout / 3, milliseconds(100), milliseconds(5000));
}

class RedisConsumer final : public ForwardingConsumer<RedisQueue> {
public:
    RedisConsumer(const RedisOptions& redis, RedisQueueOptions queue, milliseconds heartbeat_timeout)
        : ForwardingConsumer(redis, std::move(queue)), heartbeat_timeout_(heartbeat_timeout) {}

    std::vector<Task> claim(std::size_t n, milliseconds wait) override { return queue_.claim(n, wait); }
    Backlog backlog() override { return queue_.backlog(heartbeat_timeout_); }
    ReapResult reap() override { return queue_.reap(heartbeat_timeout_); }
    void heartbeat() override {}
    void leave() override { queue_.leave(); }
    // A Redis task is its payload, which is the user's data: a fingerprint of it (32 bits of FNV-1a) tells
    // repeated failures of one task apart from failures of many, without showing it.
    std::string describe(const Task& task) const override {
        return "task #" + fnv1a_32_hex(task.payload) + " (" + std::to_string(task.payload.size()) + " bytes)";
    }
    std::string name() const override { return queue_.consumer(); }

private:
    milliseconds heartbeat_timeout_;
};

class RedisMaintainer final : public QueueMaintainer {
public:
    RedisMaintainer(const RedisOptions& redis, RedisQueueOptions queue, std::vector<std::string> consumers,
                    milliseconds heartbeat_timeout, milliseconds reap_interval)
        : name_(queue.queue),
          queue_(redis, std::move(queue)),
          consumers_(std::move(consumers)),
          heartbeat_timeout_(heartbeat_timeout),
          heartbeat_interval_(heartbeat_interval(heartbeat_timeout)),
          reap_interval_(reap_interval) {}

    ReapResult tick() override {
        const auto now = steady_clock::now();
        ReapResult reaped;
        if (now >= next_beat_) {
            queue_.heartbeat(consumers_);
            next_beat_ = now + heartbeat_interval_;
        }
        if (now >= next_promote_) {
            queue_.promote();
            next_promote_ = now + promote_interval;
        }
        if (reap_interval_.count() > 0 && now >= next_reap_) {
            reaped = queue_.reap(heartbeat_timeout_);
            if (reaped.released + reaped.dead > 0)
                log().warn("queue {}: recovered {} task(s) of silent consumers: {} ready again, {} dead", name_,
                           reaped.released + reaped.dead, reaped.released, reaped.dead);
            next_reap_ = now + reap_interval_;
        }
        return reaped;
    }

private:
    std::string name_;
    RedisQueue queue_;
    std::vector<std::string> consumers_;
    milliseconds heartbeat_timeout_;
    milliseconds heartbeat_interval_;
    milliseconds reap_interval_;
    steady_clock::time_point next_beat_ = steady_clock::now();
    steady_clock::time_point next_promote_ = steady_clock::now();
    steady_clock::time_point next_reap_ = steady_clock::now();
};

}  // namespace

RedisOptions source_redis_options(const QueueSource& source) {
    return connection_options<RedisOptions>(source);
}

RedisConsumerTarget redis_consumer_target(const ConsumerOptions& options) {
    RedisConsumerTarget target{.connection = source_redis_options(options.source),
                               .queue = {},
                               .heartbeat_timeout = options.heartbeat_timeout,
                               .reap_interval = options.reap_interval};
    if (target.connection.stop == nullptr) target.connection.stop = options.stop;
    static_cast<RedisConsumerOptions&>(target.queue) = options.redis;
    target.queue.queue = options.source.queue;
    target.queue.retry = options.retry;
    return target;
}

RedisQueueOptions RedisConsumerTarget::for_worker(std::size_t worker) const {
    RedisQueueOptions named = queue;
    if (!named.consumer.empty()) named.consumer += ":" + std::to_string(worker);
    return named;
}

std::unique_ptr<QueueConsumer> open_redis_consumer(const RedisConsumerTarget& target, std::size_t worker) {
    return std::make_unique<RedisConsumer>(target.connection, target.for_worker(worker), target.heartbeat_timeout);
}

std::unique_ptr<QueueConsumer> open_named_redis_consumer(const RedisConsumerTarget& target) {
    return std::make_unique<RedisConsumer>(target.connection, target.queue, target.heartbeat_timeout);
}

std::unique_ptr<QueueMaintainer> open_redis_maintainer(const RedisConsumerTarget& target,
                                                       std::vector<std::string> consumers) {
    return std::make_unique<RedisMaintainer>(target.connection, target.queue, std::move(consumers),
                                             target.heartbeat_timeout, target.reap_interval);
}

}  // namespace rowpump
