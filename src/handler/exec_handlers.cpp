#include "handler/exec_handlers.hpp"

#include <chrono>

#include "handler/run_command.hpp"
#include "handler/task_lines.hpp"

namespace rowpump::handler {

namespace {

// How often a running command's claims get a chance to be renewed.
constexpr std::chrono::milliseconds heartbeat_tick{1000};

CommandResult run_or_halt(const std::string& command, std::string_view input, const std::vector<std::string>& environment,
                          const std::function<void()>& heartbeat) {
    try {
        return run_command(command, input, environment, heartbeat_tick, heartbeat);
    } catch (const Error& error) {
        throw ConsumerHalt(error.what());
    }
}

}  // namespace

TaskResult run_exec(const std::string& command, const TaskContext& task) {
    std::vector<std::string> environment{"ROWPUMP_QUEUE=" + std::string(task.queue),
                                         "ROWPUMP_TASK_ATTEMPT=" + std::to_string(task.attempt)};
    if (task.id != 0) environment.push_back("ROWPUMP_TASK_ID=" + std::to_string(task.id));
    const CommandResult result = run_or_halt(command, task.payload, environment, task.heartbeat);
    return result.succeeded ? TaskResult::ok() : TaskResult::fail(result.failure);
}

std::vector<TaskResult> run_exec_batch(const std::string& command, const std::vector<TaskContext>& tasks) {
    if (tasks.empty()) return {};
    std::string input;
    for (const TaskContext& task : tasks) append_task_line(task, input);
    const std::vector<std::string> environment{"ROWPUMP_QUEUE=" + std::string(tasks.front().queue),
                                               "ROWPUMP_BATCH_SIZE=" + std::to_string(tasks.size())};
    const CommandResult result = run_or_halt(command, input, environment, tasks.front().heartbeat);
    return std::vector<TaskResult>(tasks.size(), result.succeeded ? TaskResult::ok() : TaskResult::fail(result.failure));
}

}  // namespace rowpump::handler
