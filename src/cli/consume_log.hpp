#pragma once
// `queue consume`'s account of its pace: every --log-interval one info line (tasks, rate, outcomes, latency
// percentiles, tasks in flight), and with -v one debug line per task. A task's latency runs from its
// hand-over to the handler (right after its claim) to its answer: when the handler returned for --exec and
// --exec-batch, when its answer line was read for --pipe (each task of a pipelined batch its own, so the
// later tasks of a batch include the time the handler spent on those before them). An interval with no
// task concluded and none in flight writes no line: an idle consumer stays quiet.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "metrics/consumer_metrics.hpp"
#include "metrics/interval_stats.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::cli {

class ConsumeLog {
public:
    using Clock = std::chrono::steady_clock;

    // `interval` 0: no interval lines (with -v, the per-task ones still). `counters` gives the tasks in flight.
    ConsumeLog(std::string queue, std::chrono::nanoseconds interval, const metrics::ConsumerMetrics& counters);
    ~ConsumeLog();
    ConsumeLog(const ConsumeLog&) = delete;
    ConsumeLog& operator=(const ConsumeLog&) = delete;

    // Runs one handler call on `count` tasks and times them; `answers` (when given, filled by the call with
    // one time per task, a default one for "when the call returned") says when each was answered.
    template <class Call>
    auto timed(const TaskContext* tasks, std::size_t count, const std::vector<Clock::time_point>* answers, Call&& call) {
        const auto handed_over = Clock::now();
        try {
            auto result = call();
            handled(tasks, count, handed_over, answers);
            return result;
        } catch (...) {
            handled(tasks, count, handed_over, nullptr);
            throw;
        }
    }
    // Then, on the same thread, what became of one of those tasks (ConsumerOptions::on_outcome, which is
    // given the TaskContext the handler was given).
    void concluded(const TaskContext& task, TaskOutcome outcome);
    // Ends the interval thread at once, with a line for the part of an interval since the last one (so
    // that the lines add up to the run; the run's summary follows).
    void stop();

    // A buffer for the answer times of this thread's handler calls, reused from call to call.
    static std::vector<Clock::time_point>& answer_times();

private:
    void handled(const TaskContext* tasks, std::size_t count, Clock::time_point handed_over,
                 const std::vector<Clock::time_point>* answers);
    void loop();

    const std::string queue_;
    const std::chrono::nanoseconds interval_;
    const metrics::ConsumerMetrics& counters_;
    metrics::IntervalStats stats_;
    std::mutex mutex_;
    std::condition_variable stopping_;
    bool stopped_ = false;  // under mutex_
    std::thread thread_;
};

}  // namespace rowpump::cli
