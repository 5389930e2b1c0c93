// A worker's consumer and the reaper of the MySQL queue table (backend/mysql_queue/mysql_consumers.hpp).
#include <algorithm>
#include <string>
#include <thread>

#include "backend/mysql_queue/mysql_consumers.hpp"
#include "backend/forwarding_consumer.hpp"
#include "backend/queue_source.hpp"
#include "log.hpp"

namespace rowpump {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

class MySqlConsumer final : public ForwardingConsumer<MySqlQueue> {
public:
    MySqlConsumer(const MySqlOptions& mysql, MySqlQueueOptions queue, milliseconds claim_timeout)
        : ForwardingConsumer(mysql, std::move(queue)),
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

    milliseconds claim_timeout_;
    milliseconds renew_interval_;
    steady_clock::time_point last_renewal_ = steady_clock::now();
    milliseconds idle_pause_ = first_idle_pause;
};

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

}  // namespace

MySqlOptions consumer_mysql_options(const QueueSource& source) {
    return connection_options<MySqlOptions>(source);
}

MySqlQueueOptions consumer_queue_options(const ConsumerOptions& options) {
    MySqlQueueOptions queue;
    queue.table = options.source.queue;
    queue.claim_mode = options.claim_mode;
    queue.retry = options.retry;
    queue.max_crashes = options.max_crashes;
    return queue;
}

std::unique_ptr<QueueConsumer> open_mysql_consumer(const ConsumerOptions& options) {
    return std::make_unique<MySqlConsumer>(consumer_mysql_options(options.source), consumer_queue_options(options),
                                           options.claim_timeout);
}

std::unique_ptr<QueueMaintainer> open_mysql_maintainer(const ConsumerOptions& options) {
    return std::make_unique<MySqlMaintainer>(consumer_mysql_options(options.source), consumer_queue_options(options),
                                             options.claim_timeout, options.reap_interval);
}

}  // namespace rowpump
