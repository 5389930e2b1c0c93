#pragma once
// One run of run_consumers (rowpump/consumer.hpp): the state its threads share, and what each thread
// does: a worker claims tasks, hands them to the handler and records what became of them; the
// maintenance thread beats, promotes and reaps (queue/queue_maintainer.hpp).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "metrics/outcome_counters.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::consume {

struct ConsumerRun {
    ConsumerRun(const ConsumerOptions& run_options, const TaskHandler& task_handler, std::string queue_name,
                RetryPolicy queue_retry)
        : options(run_options), handler(&task_handler), queue(std::move(queue_name)), retry(queue_retry) {}
    ConsumerRun(const ConsumerOptions& run_options, const BatchHandler& run_batch_handler, std::string queue_name,
                RetryPolicy queue_retry)
        : options(run_options), batch_handler(&run_batch_handler), queue(std::move(queue_name)), retry(queue_retry) {}

    const ConsumerOptions& options;
    const TaskHandler* handler = nullptr;  // exactly one of the two is set
    const BatchHandler* batch_handler = nullptr;
    const std::string queue;   // for log lines and TaskContext::queue
    const RetryPolicy retry;   // the queue's own; a handler's retry or dead changes it per task
    std::atomic<bool> halt{false};  // a worker or the maintenance failed: everyone stops (run_workers)
    metrics::OutcomeCounters outcomes;   // the handled tasks, by what they came to
    std::atomic<std::uint64_t> reaped_dead{0};  // dead from the reaper: their consumers were lost too often
    std::atomic<std::uint64_t> handed_back{0};
    std::atomic<std::uint64_t> delayed_left{0};   // until_empty: as the last worker to look saw them
    std::atomic<std::size_t> drained_workers{0};  // until_empty: workers that found nothing left to run
    std::atomic<bool> said_held{false};           // until_empty: the wait for other consumers was logged
    std::atomic<std::size_t> held_here{0};        // tasks this run's workers have claimed and not finished

    // until_empty: a worker that waits for tasks the run's other workers hold wakes when one of them
    // finishes a batch, not only at its next look at the queue (a drain ends when its last task does).
    void batch_finished();
    // How many batches have finished; then wait_for_batch returns once the count is past `seen` (at once
    // when a batch finished in between) or `longest` passes (a stop is seen within `longest`).
    std::uint64_t batches_seen();
    void wait_for_batch(std::uint64_t seen, std::chrono::milliseconds longest);

    bool stop_requested() const { return options.stop != nullptr && options.stop->load(); }
    bool stopping() const { return stop_requested() || halt.load(); }
    ConsumerReport report() const;

private:
    std::mutex batch_mutex_;
    std::condition_variable batch_done_;
    std::uint64_t batches_finished_ = 0;
};

// Claims and runs tasks until the run stops or, with until_empty, nothing is left. On a failure it hands
// the rest of its batch back (best effort) and throws.
void work(QueueConsumer& consumer, ConsumerRun& run);

// Ticks the maintainer until no worker runs any more or the run halts; throws what a tick threw.
void maintain(QueueMaintainer& maintainer, ConsumerRun& run, const std::atomic<std::size_t>& workers_running);

}  // namespace rowpump::consume
