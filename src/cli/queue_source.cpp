#include "cli/queue_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Heartbeats go out three times per timeout, so one late beat never expires a live consumer.
milliseconds heartbeat_interval(const QueueOptions& options) {
    const auto timeout = flag_milliseconds(options.heartbeat_timeout_seconds, "--heartbeat-timeout");
    return std::clamp(timeout / 3, milliseconds(100), milliseconds(5000));
}
// 32 bits of FNV-1a as 8 hex digits: enough to match the log lines about one task, and not its content.
std::string payload_fingerprint(const std::string& payload) {
    std::uint32_t hash = 2166136261u;
    for (unsigned char c : payload) {
        hash ^= c;
        hash *= 16777619u;
    }
    char text[9];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(hash));
    return text;
}

// Delayed tasks are promoted this often, which bounds how late past its due time a task is delivered.
constexpr milliseconds promote_interval{200};

class MySqlConsumer final : public QueueConsumer {
public:
    MySqlConsumer(const MySqlOptions& mysql, const QueueOptions& options)
        : queue_(mysql, mysql_queue_options(options)),
          touch_interval_(std::max(flag_milliseconds(options.claim_timeout_seconds, "--claim-timeout") / 3,
                                   milliseconds(100))) {}

    std::vector<Task> take(std::size_t n, milliseconds wait) override {
        auto tasks = queue_.claim(n);
        if (!tasks.empty()) {
            idle_pause_ = first_idle_pause;
            last_touch_ = steady_clock::now();
            return tasks;
        }
        // MySQL cannot block until a row arrives: poll, backing off while the queue stays empty.
        std::this_thread::sleep_for(std::min(wait, idle_pause_));
        idle_pause_ = std::min(idle_pause_ * 2, max_idle_pause);
        return tasks;
    }
    void ack(const Task& task) override { queue_.ack(task); }
    FailOutcome fail(const Task& task, const std::string& error) override { return queue_.fail(task, error); }
    void release(const std::vector<Task>& tasks) override { queue_.release(tasks); }
    Backlog backlog() override { return queue_.backlog(); }
    void keep_alive() override {
        if (steady_clock::now() - last_touch_ < touch_interval_) return;
        queue_.touch();
        last_touch_ = steady_clock::now();
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
    milliseconds touch_interval_;
    steady_clock::time_point last_touch_ = steady_clock::now();
    milliseconds idle_pause_ = first_idle_pause;
};

class RedisConsumer final : public QueueConsumer {
public:
    RedisConsumer(const RedisOptions& redis, RedisQueueOptions queue) : queue_(redis, std::move(queue)) {}

    std::vector<Task> take(std::size_t n, milliseconds wait) override { return queue_.pop(n, wait); }
    void ack(const Task& task) override { queue_.ack(task); }
    FailOutcome fail(const Task& task, const std::string& error) override { return queue_.fail(task, error); }
    void release(const std::vector<Task>& tasks) override { queue_.release(tasks); }
    Backlog backlog() override { return queue_.backlog(); }
    void keep_alive() override {}
    void leave() override { queue_.leave(); }
    // A Redis task is its payload, which is the user's data: a fingerprint of it tells repeated failures
    // of one task apart from failures of many, without showing it.
    std::string describe(const Task& task) const override {
        return "task #" + payload_fingerprint(task.payload) + " (" + std::to_string(task.payload.size()) + " bytes)";
    }
    std::string name() const override { return queue_.consumer(); }

private:
    RedisQueue queue_;
};

class MySqlMaintainer final : public QueueMaintainer {
public:
    MySqlMaintainer(const MySqlOptions& mysql, const QueueOptions& options)
        : queue_(mysql, mysql_queue_options(options)),
          claim_timeout_(flag_milliseconds(options.claim_timeout_seconds, "--claim-timeout")),
          reap_interval_(flag_milliseconds(options.reap_interval_seconds, "--reap-interval")),
          name_(options.queue) {
        if (claim_timeout_.count() == 0)
            throw UsageError("--claim-timeout must be more than 0 s: every claim would be taken back at once");
    }

    void tick() override {
        if (reap_interval_.count() == 0 || steady_clock::now() < next_reap_) return;
        const ReapResult reaped = queue_.reap(claim_timeout_);
        if (reaped.released + reaped.dead > 0)
            log().warn("queue {}: took back {} lost claim(s): {} ready again, {} dead (crashed too often)", name_,
                       reaped.released + reaped.dead, reaped.released, reaped.dead);
        next_reap_ = steady_clock::now() + reap_interval_;
    }

private:
    MySqlQueue queue_;
    milliseconds claim_timeout_;
    milliseconds reap_interval_;
    std::string name_;
    steady_clock::time_point next_reap_ = steady_clock::now();
};

class RedisMaintainer final : public QueueMaintainer {
public:
    RedisMaintainer(const RedisOptions& redis, const QueueOptions& options, std::vector<std::string> consumers)
        : queue_(redis, redis_queue_options(options)),
          consumers_(std::move(consumers)),
          heartbeat_timeout_(flag_milliseconds(options.heartbeat_timeout_seconds, "--heartbeat-timeout")),
          heartbeat_interval_(heartbeat_interval(options)),
          reap_interval_(flag_milliseconds(options.reap_interval_seconds, "--reap-interval")),
          name_(options.queue) {}

    void tick() override {
        const auto now = steady_clock::now();
        if (now >= next_beat_) {
            queue_.heartbeat(consumers_);
            next_beat_ = now + heartbeat_interval_;
        }
        if (now >= next_promote_) {
            queue_.promote();
            next_promote_ = now + promote_interval;
        }
        if (reap_interval_.count() > 0 && now >= next_recover_) {
            const ReapResult recovered = queue_.recover(heartbeat_timeout_);
            if (recovered.released + recovered.dead > 0)
                log().warn("queue {}: recovered {} task(s) of silent consumers: {} ready again, {} dead", name_,
                           recovered.released + recovered.dead, recovered.released, recovered.dead);
            next_recover_ = now + reap_interval_;
        }
    }

private:
    RedisQueue queue_;
    std::vector<std::string> consumers_;
    milliseconds heartbeat_timeout_;
    milliseconds heartbeat_interval_;
    milliseconds reap_interval_;
    std::string name_;
    steady_clock::time_point next_beat_ = steady_clock::now();
    steady_clock::time_point next_promote_ = steady_clock::now();
    steady_clock::time_point next_recover_ = steady_clock::now();
};

}  // namespace

milliseconds flag_milliseconds(double seconds, const char* flag) {
    if (!(seconds >= 0) || !std::isfinite(seconds))
        throw UsageError(std::string(flag) + " must be a number of seconds >= 0");
    return milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

QueueSource parse_queue_source(const QueueOptions& options) {
    QueueSource source;
    if (options.source.starts_with("mysql://")) {
        source.mysql = MySqlOptions::from_url(options.source);
        if (options.retry_budget_seconds)
            source.mysql->retry_budget = std::chrono::seconds(*options.retry_budget_seconds);
        source.redacted = source.mysql->redacted();
    } else if (options.source.starts_with("redis://")) {
        source.redis = RedisOptions::from_url(options.source);
        source.redacted = source.redis->redacted();
    } else if (options.source.empty()) {
        throw UsageError("no queue source: pass --source mysql://... or redis://... (or set ROWPUMP_QUEUE_SOURCE)");
    } else {
        throw UsageError("queue source '" + redact_url(options.source) + "' is neither mysql://... nor redis://...");
    }
    if (options.queue.empty()) throw UsageError("no queue given: pass --queue NAME");
    const bool redis_names = options.list_key != QueueOptions().list_key ||
                             options.delayed_key != QueueOptions().delayed_key || options.delay_score != "ms";
    if (source.mysql && redis_names)
        throw UsageError("--list-key, --delayed-key and --delay-score name Redis keys: a MySQL queue table has none; "
                         "drop them");
    return source;
}

RetryPolicy retry_policy(const QueueOptions& options) {
    RetryPolicy policy;
    policy.max_attempts = options.max_attempts;
    policy.backoff_base = flag_milliseconds(options.backoff_seconds, "--backoff");
    policy.backoff_cap = flag_milliseconds(options.backoff_cap_seconds, "--backoff-cap");
    return policy;
}

MySqlQueueOptions mysql_queue_options(const QueueOptions& options) {
    MySqlQueueOptions queue;
    queue.table = options.queue;
    queue.claim_mode = options.claim_mode == "update-then-select" ? ClaimMode::update_then_select : ClaimMode::skip_locked;
    queue.retry = retry_policy(options);
    queue.max_crashes = options.max_crashes;
    return queue;
}

RedisQueueOptions redis_queue_options(const QueueOptions& options) {
    RedisQueueOptions queue;
    queue.queue = options.queue;
    queue.priority_lists = options.priority_lists;
    queue.return_list = options.return_list;
    queue.list_key = options.list_key;
    queue.delayed_key = options.delayed_key;
    queue.delay_score = options.delay_score == "s" ? DelayScore::seconds : DelayScore::milliseconds;
    queue.retry = retry_policy(options);
    queue.poll_interval = flag_milliseconds(options.poll_seconds, "--poll");
    if (options.retry_budget_seconds) queue.retry_budget = std::chrono::seconds(*options.retry_budget_seconds);
    return queue;
}

std::unique_ptr<QueueConsumer> open_consumer(const QueueSource& source, const QueueOptions& options, std::size_t index) {
    if (source.mysql) return std::make_unique<MySqlConsumer>(*source.mysql, options);
    RedisQueueOptions queue = redis_queue_options(options);
    if (!options.consumer.empty()) queue.consumer = options.consumer + ":" + std::to_string(index);
    return std::make_unique<RedisConsumer>(*source.redis, std::move(queue));
}

std::unique_ptr<QueueMaintainer> open_maintainer(const QueueSource& source, const QueueOptions& options,
                                                 std::vector<std::string> consumers) {
    if (source.mysql) return std::make_unique<MySqlMaintainer>(*source.mysql, options);
    return std::make_unique<RedisMaintainer>(*source.redis, options, std::move(consumers));
}

}  // namespace rowpump::cli
