// The queue commands' one-step maintenance of a Redis queue (backend/redis/redis_consumers.hpp).
#include "backend/forwarding_admin.hpp"
#include "backend/redis/redis_consumers.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

class RedisQueueAdmin final : public ForwardingAdmin<RedisQueue, RedisOptions, RedisQueueOptions> {
public:
    explicit RedisQueueAdmin(const RedisConsumerTarget& target)
        : ForwardingAdmin(target.connection, target.queue, target.heartbeat_timeout) {
        queue_.consumer.clear();  // the commands consume nothing: the queue's default name will do
    }

    // Redis keys come into being with their first task; opening the queue checks the server is there.
    std::string init() override {
        open();
        return "Redis queue " + queue_.queue + " needs no setup (" + connection_.redacted() + "): ready list " +
               redis::ready_list(queue_.queue) + ", delayed set " + redis::delayed_key(queue_.delayed_key, queue_.queue) +
               ", dead list " + redis::dead_list(queue_.queue);
    }
    QueueStats stats(bool) override { return open().stats(timeout_); }
    StatsWords words() const override { return {"processing", "consumers", "last_beat_seconds_ago"}; }
    std::string holder_line(const QueueStats::Holder& holder) const override {
        return "  consumer " + holder.name + ": " + std::to_string(holder.tasks) + " processing, last beat " +
               seconds_text(holder.age_seconds) + " ago" + (holder.alive ? "" : ", EXPIRED (reap to recover)");
    }
    std::uint64_t promote() override { return open().promote(); }
    std::uint64_t purge(std::chrono::seconds, std::size_t) override {
        throw UsageError("queue purge is for MySQL queue tables: Redis forgets a task when it is acknowledged");
    }
};

}  // namespace

std::unique_ptr<QueueAdmin> open_redis_admin(const RedisConsumerTarget& target) {
    return std::make_unique<RedisQueueAdmin>(target);
}

}  // namespace rowpump
