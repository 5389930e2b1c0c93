#pragma once
// `queue consume --pipe CMD`: persistent handler processes, at most one per worker thread, each fed
// batches of tasks (handler/handler_process.hpp). A process that faults is replaced by a new one for the
// next batch; restart() (SIGHUP, `systemctl reload`) replaces every process after its current batch,
// without losing a task. A command that cannot start, or that ends before it answers any task three
// times in a row, stops the run (ConsumerHalt): every task would only fail.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "handler/handler_process.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::handler {

class PipeHandlers {
public:
    explicit PipeHandlers(PipeOptions options);
    // Ends every process: its input is closed and it gets the task timeout (at most 10 s) to exit.
    ~PipeHandlers();
    PipeHandlers(const PipeHandlers&) = delete;
    PipeHandlers& operator=(const PipeHandlers&) = delete;

    // The batch handler (ConsumerOptions, run_batch_consumers); safe on several threads at once.
    std::vector<TaskResult> operator()(const std::vector<TaskContext>& tasks) { return run(tasks, nullptr); }
    // The same, and when each answer came (HandlerProcess::run).
    std::vector<TaskResult> run(const std::vector<TaskContext>& tasks,
                                std::vector<std::chrono::steady_clock::time_point>* answered_at);
    // Every process is replaced once its current batch is done (idle ones at their next batch).
    void restart() { generation_.fetch_add(1); }

    std::uint64_t restarts() const noexcept { return restarts_.load(); }  // after faults

private:
    std::unique_ptr<HandlerProcess> acquire();
    void give_back(std::unique_ptr<HandlerProcess> process);
    std::unique_ptr<HandlerProcess> start();
    void note_fault(const HandlerProcess& process);

    const PipeOptions options_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<HandlerProcess>> idle_;
    std::atomic<unsigned> generation_{0};
    std::atomic<std::uint64_t> restarts_{0};
    int failed_starts_ = 0;  // faults in a row of processes that answered nothing; under mutex_
    std::string halt_;       // why the next batch stops the run; under mutex_
};

}  // namespace rowpump::handler
