#include "cli/consume_log.hpp"

#include <cstdint>

#include "fnv1a.hpp"
#include "metrics/interval_line.hpp"
#include "log.hpp"

namespace rowpump::cli {

namespace {

using std::chrono::nanoseconds;

// The tasks of this worker thread's last handler call and their latencies, until their outcomes are in:
// reused from call to call, so timing a task allocates nothing once the first batch was this large.
struct LastCall {
    const TaskContext* first = nullptr;
    std::size_t count = 0;
    std::vector<nanoseconds> latencies;
};
thread_local LastCall last_call;

// The latency of a task of the last call; negative when the task is not one of them.
nanoseconds latency_of(const TaskContext& task) {
    const auto at = reinterpret_cast<std::uintptr_t>(&task), first = reinterpret_cast<std::uintptr_t>(last_call.first);
    if (last_call.first == nullptr || at < first) return nanoseconds(-1);
    const std::size_t index = (at - first) / sizeof(TaskContext);
    return index < last_call.count ? last_call.latencies[index] : nanoseconds(-1);
}

const char* outcome_name(TaskOutcome outcome) {
    switch (outcome) {
        case TaskOutcome::done: return "ok";
        case TaskOutcome::retried: return "failed (retried)";
        case TaskOutcome::dead: return "dead";
        case TaskOutcome::stale: break;
    }
    return "stale";
}

// As the consumer's warnings name a task (QueueConsumer::describe): a MySQL task by its id, a Redis task,
// which is its payload, by a fingerprint of it.
std::string task_name(const TaskContext& task) {
    const std::string size = " (" + std::to_string(task.payload.size()) + " bytes)";
    if (task.id != 0) return "task " + std::to_string(task.id) + size;
    return "task #" + fnv1a_32_hex(task.payload) + size;
}

}  // namespace

ConsumeLog::ConsumeLog(std::string queue, nanoseconds interval, const metrics::ConsumerMetrics& counters)
    : queue_(std::move(queue)), interval_(interval), counters_(counters) {
    if (interval_.count() > 0) thread_ = std::thread([this] { loop(); });
}

ConsumeLog::~ConsumeLog() { stop(); }

std::vector<ConsumeLog::Clock::time_point>& ConsumeLog::answer_times() {
    thread_local std::vector<Clock::time_point> times;
    return times;
}

void ConsumeLog::handled(const TaskContext* tasks, std::size_t count, Clock::time_point handed_over,
                         const std::vector<Clock::time_point>* answers) {
    const auto returned = Clock::now();
    if (answers != nullptr && answers->size() != count) answers = nullptr;
    last_call.first = tasks;
    last_call.count = count;
    last_call.latencies.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto answered = answers == nullptr || (*answers)[i] == Clock::time_point{} ? returned : (*answers)[i];
        last_call.latencies[i] = answered - handed_over;
    }
}

void ConsumeLog::concluded(const TaskContext& task, TaskOutcome outcome) {
    const nanoseconds latency = latency_of(task);
    stats_.record(outcome, latency);
    if (!log().should_log(spdlog::level::debug)) return;
    if (latency.count() >= 0)
        log().debug("queue {}: {}, attempt {}: {} in {}", queue_, task_name(task), task.attempt, outcome_name(outcome),
                    metrics::short_duration(latency));
    else
        log().debug("queue {}: {}, attempt {}: {}", queue_, task_name(task), task.attempt, outcome_name(outcome));
}

void ConsumeLog::stop() {
    {
        const std::lock_guard lock(mutex_);
        stopped_ = true;
    }
    stopping_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void ConsumeLog::loop() {
    auto start = Clock::now();
    std::unique_lock lock(mutex_);
    for (;;) {
        const bool stopped = stopping_.wait_until(lock, start + interval_, [this] { return stopped_; });
        const auto now = Clock::now();
        // At the stop too, for the part of an interval run since the last line: the lines add up to the run.
        const std::string line = metrics::interval_line(queue_, stats_.take(),
                                                        std::chrono::duration<double>(now - start).count(),
                                                        counters_.in_flight());
        if (!line.empty()) log().info("{}", line);
        if (stopped) return;
        start = now;
    }
}

}  // namespace rowpump::cli
