#include "cli/dead_tasks.hpp"

#include <functional>

namespace rowpump::cli {

namespace {

// A payload or an error is cut here: the page shows a line of each.
constexpr std::size_t shown_bytes = 300;

// The last handler call on this thread: its tasks and one reason each.
struct LastCall {
    const TaskContext* first = nullptr;
    std::vector<std::string> reasons;
};

LastCall& last_call() {
    thread_local LastCall call;
    return call;
}

std::string cut(std::string_view text) {
    return text.size() <= shown_bytes ? std::string(text) : std::string(text.substr(0, shown_bytes)) + "...";
}

}  // namespace

void DeadTasks::answered(const TaskContext* tasks, const std::vector<TaskResult>& results) {
    LastCall& call = last_call();
    call.first = tasks;
    call.reasons.clear();
    for (const TaskResult& result : results) call.reasons.push_back(result.reason);
}

void DeadTasks::answered(const TaskContext* tasks, const TaskResult& result) {
    LastCall& call = last_call();
    call.first = tasks;
    call.reasons.assign(1, result.reason);
}

void DeadTasks::threw(const TaskContext* tasks, std::size_t count, const std::string& what) {
    LastCall& call = last_call();
    call.first = tasks;
    call.reasons.assign(count, what);
}

void DeadTasks::concluded(const TaskContext& task, TaskOutcome outcome) {
    if (outcome != TaskOutcome::dead) return;
    DeadTask dead{task.id, task.attempt, "", cut(task.payload), std::chrono::steady_clock::now()};
    const LastCall& call = last_call();
    // std::less: the task may be of another call's array, which the built-in < must not compare.
    const std::less<const TaskContext*> before;
    if (call.first != nullptr && !before(&task, call.first) && before(&task, call.first + call.reasons.size()))
        dead.error = cut(call.reasons[static_cast<std::size_t>(&task - call.first)]);
    std::lock_guard lock(mutex_);
    tasks_.push_front(std::move(dead));
    if (tasks_.size() > kept) tasks_.pop_back();
}

std::vector<DeadTask> DeadTasks::newest() const {
    std::lock_guard lock(mutex_);
    return {tasks_.begin(), tasks_.end()};
}

}  // namespace rowpump::cli
