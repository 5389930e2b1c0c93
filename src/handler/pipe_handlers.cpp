#include "handler/pipe_handlers.hpp"

#include <algorithm>
#include <thread>

#include "log.hpp"

namespace rowpump::handler {

namespace {

using std::chrono::milliseconds;

// Faults in a row, of processes that answered nothing, that stop the run.
constexpr int failed_starts_that_halt = 3;
// The longest a process gets to exit once its input ended (a restart, the end of the run).
constexpr milliseconds longest_exit{10000};

milliseconds exit_grace(const PipeOptions& options) {
    return options.task_timeout.count() > 0 ? std::min(options.task_timeout, longest_exit) : longest_exit;
}

}  // namespace

PipeHandlers::PipeHandlers(PipeOptions options) : options_(std::move(options)) {}

PipeHandlers::~PipeHandlers() {
    for (auto& process : idle_) process->finish(exit_grace(options_));
}

std::unique_ptr<HandlerProcess> PipeHandlers::start() {
    try {
        return std::make_unique<HandlerProcess>(options_, generation_.load());
    } catch (const Error& error) {
        throw ConsumerHalt(error.what());
    }
}

std::unique_ptr<HandlerProcess> PipeHandlers::acquire() {
    std::unique_ptr<HandlerProcess> process;
    {
        std::lock_guard lock(mutex_);
        if (!halt_.empty()) throw ConsumerHalt(halt_);
        if (!idle_.empty()) {
            process = std::move(idle_.back());
            idle_.pop_back();
        }
    }
    if (process && process->generation() != generation_.load()) {
        log().info("handler {} (pid {}) is restarted (reload)", options_.command, process->pid());
        process->finish(exit_grace(options_));
        process.reset();
    } else if (process && !process->alive()) {
        log().warn("handler {} (pid {}) ended between tasks; it is restarted", options_.command, process->pid());
        process.reset();
        restarts_.fetch_add(1);
    }
    return process ? std::move(process) : start();
}

void PipeHandlers::give_back(std::unique_ptr<HandlerProcess> process) {
    if (process->generation() != generation_.load()) {
        log().info("handler {} (pid {}) is restarted (reload)", options_.command, process->pid());
        process->finish(exit_grace(options_));
        return;
    }
    std::lock_guard lock(mutex_);
    failed_starts_ = 0;
    idle_.push_back(std::move(process));
}

void PipeHandlers::note_fault(const HandlerProcess& process) {
    restarts_.fetch_add(1);
    int failed_starts = 0;
    {
        std::lock_guard lock(mutex_);
        failed_starts = process.answered() == 0 ? ++failed_starts_ : (failed_starts_ = 0);
    }
    // The batch's tasks are recorded as failed first; the next batch stops the run.
    if (failed_starts >= failed_starts_that_halt) {
        std::lock_guard lock(mutex_);
        halt_ = "the --pipe handler " + options_.command + " " + process.fault() + " before it answered a task, " +
                std::to_string(failed_starts) + " times in a row: check that it runs by hand";
        return;
    }
    // A handler that dies at once is started again after a growing pause, not in a tight loop.
    if (failed_starts > 0) std::this_thread::sleep_for(milliseconds(200) * failed_starts);
}

std::vector<TaskResult> PipeHandlers::run(const std::vector<TaskContext>& tasks,
                                        std::vector<std::chrono::steady_clock::time_point>* answered_at) {
    std::vector<TaskResult> results;
    std::unique_ptr<HandlerProcess> process = acquire();
    if (process->run(tasks, results, answered_at))
        give_back(std::move(process));
    else
        note_fault(*process);
    return results;
}

}  // namespace rowpump::handler
