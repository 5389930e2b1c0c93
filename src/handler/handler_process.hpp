#pragma once
// One persistent handler process of `queue consume --pipe`: started once, fed tasks as JSON lines on its
// stdin, several at a time, and read one result line per task from its stdout, in order
// (handler/task_lines.hpp). Its stderr is ours.
#include <chrono>
#include <string>
#include <vector>

#include "process/child_process.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::handler {

struct PipeOptions {
    std::string command;
    // A task whose result takes longer than this, counted from the previous task's result, is a fault (a new
    // process's first result gets 5 s more, for its start-up).
    std::chrono::milliseconds task_timeout{std::chrono::minutes(5)};
    std::vector<std::string> environment;  // "NAME=value" added for the process
};

class HandlerProcess {
public:
    // Starts the command; throws Error when it cannot be started.
    HandlerProcess(const PipeOptions& options, unsigned generation);

    // Sends every task and reads their results into `results` (one per task, in order). A fault ends the
    // process: it exited or was killed, wrote a line that is not a result, or a task took longer than the
    // task timeout. It is then killed (its whole group), and every task without a result fails with the
    // fault as its reason: back to the queue as a failed attempt, never acknowledged. Returns false after
    // a fault; this object is then spent. With `answered_at`, also when each answer line was read (a task
    // failed by a fault: the default time_point, for "when run returned").
    bool run(const std::vector<TaskContext>& tasks, std::vector<TaskResult>& results,
             std::vector<std::chrono::steady_clock::time_point>* answered_at = nullptr);

    // Whether it still runs (a process idle between batches may have exited on its own).
    bool alive();
    // Closes its stdin (a handler ends when its input ends) and waits up to `grace` for it to exit, then
    // kills its group.
    void finish(std::chrono::milliseconds grace);

    unsigned generation() const noexcept { return generation_; }
    std::uint64_t answered() const noexcept { return answered_; }  // results it gave in its life
    const std::string& fault() const noexcept { return fault_; }    // why it ended, after run() is false
    pid_t pid() const noexcept { return child_.pid(); }

private:
    void fail_from(std::size_t first, const std::vector<TaskContext>& tasks, std::vector<TaskResult>& results,
                   std::string fault);
    // Reads what stdout holds; false at end of file.
    bool read_available();
    std::string exit_text();

    const PipeOptions& options_;
    unsigned generation_;
    process::ChildProcess child_;
    std::string input_;   // lines of the batch, written as the pipe takes them
    std::string output_;  // what it answered and we have not parsed yet
    std::uint64_t answered_ = 0;
    std::string fault_;
};

}  // namespace rowpump::handler
