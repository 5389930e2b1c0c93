#include "queue/queue_consumer.hpp"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "fnv1a.hpp"

namespace rowpump {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// 32 bits of FNV-1a: enough to match the log lines about one task, and not its content.
std::string payload_fingerprint(const std::string& payload) { return fnv1a_32_hex(payload); }

class MySqlConsumer final : public QueueConsumer {
public:
    MySqlConsumer(const MySqlOptions& mysql, MySqlQueueOptions queue, milliseconds claim_timeout)
        : queue_(mysql, std::move(queue)),
          claim_timeout_(claim_timeout),
          renew_interval_(std::max(claim_timeout / 3, milliseconds(100))) {}

    std::vector<Task> claim(std::size_t n, milliseconds wait) override {
        auto tasks = queue_.claim(n);
        if (!tasks.empty()) {
            idle_pause_ = first_idle_pause;
            last_renewal_ = steady_clock::now();
            return tasks;
        }
        // MySQL cannot block until a row arrives: poll, backing off while the queue stays empty.
        std::this_thread::sleep_for(std::min(wait, idle_pause_));
        idle_pause_ = std::min(idle_pause_ * 2, max_idle_pause);
        return tasks;
    }
    void ack(const Task& task) override { queue_.ack(task); }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override { return queue_.ack(tasks); }
    FailOutcome fail(const Task& task, const std::string& error) override { return queue_.fail(task, error); }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        return queue_.fail(task, error, policy);
    }
    void release(const std::vector<Task>& tasks) override { queue_.release(tasks); }
    Backlog backlog() override { return queue_.backlog(); }
    ReapResult reap() override { return queue_.reap(claim_timeout_); }
    void heartbeat() override {
        if (steady_clock::now() - last_renewal_ < renew_interval_) return;
        queue_.heartbeat();
        last_renewal_ = steady_clock::now();
    }
    void leave() override {}
    std::string describe(const Task& task) const override {
        return "task " + std::to_string(task.id) + " (" + std::to_string(task.payload.size()) + " bytes)";
    }
    std::string name() const override { return {}; }

private:
    static constexpr milliseconds first_idle_pause{10};
    static constexpr milliseconds max_idle_pause{500};

    MySqlQueue queue_;
    milliseconds claim_timeout_;
    milliseconds renew_interval_;
    steady_clock::time_point last_renewal_ = steady_clock::now();
    milliseconds idle_pause_ = first_idle_pause;
};

class RedisConsumer final : public QueueConsumer {
public:
    RedisConsumer(const RedisOptions& redis, RedisQueueOptions queue, milliseconds heartbeat_timeout)
        : queue_(redis, std::move(queue)), heartbeat_timeout_(heartbeat_timeout) {}

    std::vector<Task> claim(std::size_t n, milliseconds wait) override { return queue_.claim(n, wait); }
    void ack(const Task& task) override { queue_.ack(task); }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override { return queue_.ack(tasks); }
    FailOutcome fail(const Task& task, const std::string& error) override { return queue_.fail(task, error); }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        return queue_.fail(task, error, policy);
    }
    void release(const std::vector<Task>& tasks) override { queue_.release(tasks); }
    Backlog backlog() override { return queue_.backlog(heartbeat_timeout_); }
    ReapResult reap() override { return queue_.reap(heartbeat_timeout_); }
    void heartbeat() override {}
    void leave() override { queue_.leave(); }
    // A Redis task is its payload, which is the user's data: a fingerprint of it tells repeated failures
    // of one task apart from failures of many, without showing it.
    std::string describe(const Task& task) const override {
        return "task #" + payload_fingerprint(task.payload) + " (" + std::to_string(task.payload.size()) + " bytes)";
    }
    std::string name() const override { return queue_.consumer(); }

private:
    RedisQueue queue_;
    milliseconds heartbeat_timeout_;
};

}  // namespace

std::unique_ptr<QueueConsumer> open_mysql_consumer(const MySqlOptions& mysql, MySqlQueueOptions queue,
                                                   milliseconds claim_timeout) {
    return std::make_unique<MySqlConsumer>(mysql, std::move(queue), claim_timeout);
}

std::unique_ptr<QueueConsumer> open_redis_consumer(const RedisOptions& redis, RedisQueueOptions queue,
                                                   milliseconds heartbeat_timeout) {
    return std::make_unique<RedisConsumer>(redis, std::move(queue), heartbeat_timeout);
}

}  // namespace rowpump
