#include "queue/queue_maintainer.hpp"

#include <algorithm>

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

class MySqlMaintainer final : public QueueMaintainer {
public:
    MySqlMaintainer(const MySqlOptions& mysql, MySqlQueueOptions queue, milliseconds claim_timeout,
                    milliseconds reap_interval)
        : name_(queue.table),
          queue_(mysql, std::move(queue)),
          claim_timeout_(claim_timeout),
          reap_interval_(reap_interval) {}

    ReapResult tick() override {
        if (reap_interval_.count() == 0 || steady_clock::now() < next_reap_) return {};
        const ReapResult reaped = queue_.reap(claim_timeout_);
        if (reaped.released + reaped.dead > 0)
            log().warn("queue {}: took back {} lost claim(s): {} ready again, {} dead (crashed too often)", name_,
                       reaped.released + reaped.dead, reaped.released, reaped.dead);
        next_reap_ = steady_clock::now() + reap_interval_;
        return reaped;
    }

private:
    std::string name_;
    MySqlQueue queue_;
    milliseconds claim_timeout_;
    milliseconds reap_interval_;
    steady_clock::time_point next_reap_ = steady_clock::now();
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

std::unique_ptr<QueueMaintainer> open_mysql_maintainer(const MySqlOptions& mysql, MySqlQueueOptions queue,
                                                       milliseconds claim_timeout, milliseconds reap_interval) {
    return std::make_unique<MySqlMaintainer>(mysql, std::move(queue), claim_timeout, reap_interval);
}

std::unique_ptr<QueueMaintainer> open_redis_maintainer(const RedisOptions& redis, RedisQueueOptions queue,
                                                       std::vector<std::string> consumers,
                                                       milliseconds heartbeat_timeout, milliseconds reap_interval) {
    return std::make_unique<RedisMaintainer>(redis, std::move(queue), std::move(consumers), heartbeat_timeout,
                                             reap_interval);
}

}  // namespace rowpump
