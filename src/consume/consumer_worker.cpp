// A consumer worker: claim up to `batch` tasks, run the handler on each, record its result (ack, fail
// with the queue's backoff or the handler's delay, dead), and with until_empty wait for what the queue
// still owes before it stops. On a stop it finishes the task it runs and hands the rest of its batch back
// unprocessed (no attempt counted).
#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>
#include <vector>

#include "consume/consumer_run.hpp"
#include "log.hpp"

namespace rowpump::consume {

namespace {

using std::chrono::milliseconds;

// How long a drain's wait sleeps before it looks at the stop flag again.
constexpr milliseconds stop_check{1000};

TaskResult handle(const TaskHandler& handler, const TaskContext& context) {
    try {
        return handler(context);
    } catch (const ConsumerHalt&) {
        throw;
    } catch (const std::exception& error) {
        return TaskResult::fail(error.what());
    } catch (...) {
        return TaskResult::fail("its handler threw something that is not a std::exception");
    }
}

// The queue's retry policy, changed as the handler asked: its own delay, or dead whatever the attempts.
RetryPolicy policy_for(const TaskResult& result, const RetryPolicy& queue_policy) {
    RetryPolicy policy = queue_policy;
    if (result.kind == TaskResult::Kind::retry) {
        policy.backoff_base = policy.backoff_cap = std::max(result.delay, milliseconds(0));
        policy.jitter = 0;
    } else if (result.kind == TaskResult::Kind::dead) {
        policy.max_attempts = 1;
    }
    return policy;
}

// Acknowledges or fails the task as the result says, with the log lines `queue consume` has always had.
TaskOutcome record(QueueConsumer& consumer, const Task& task, const TaskResult& result, ConsumerRun& run) {
    if (result.kind == TaskResult::Kind::ok) {
        consumer.ack(task);
        return TaskOutcome::done;
    }
    log().debug("{} that failed has the payload {}", consumer.describe(task), task.payload);
    const bool dead = consumer.fail(task, result.reason, policy_for(result, run.retry)) == FailOutcome::dead;
    const std::string what = consumer.describe(task);
    if (result.kind == TaskResult::Kind::dead)
        log().error("{} failed ({}): its handler gave it up, now dead", what, result.reason);
    else if (dead)
        log().error("{} failed ({}): attempt {} of {}, now dead", what, result.reason, task.attempts + 1,
                    run.retry.max_attempts);
    else if (result.kind == TaskResult::Kind::retry)
        log().warn("{} failed ({}): attempt {} of {}, will retry in {} ms", what, result.reason, task.attempts + 1,
                   run.retry.max_attempts, std::max(result.delay, milliseconds(0)).count());
    else
        log().warn("{} failed ({}): attempt {} of {}, will retry", what, result.reason, task.attempts + 1,
                   run.retry.max_attempts);
    return dead ? TaskOutcome::dead : TaskOutcome::retried;
}

TaskContext context_of(QueueConsumer& consumer, const Task& task, const ConsumerRun& run) {
    TaskContext context;
    context.queue = run.queue;
    context.id = task.id;
    context.attempt = task.deliveries;
    context.payload = task.payload;
    context.heartbeat = [&consumer] { consumer.heartbeat(); };
    return context;
}

void conclude(const TaskContext& context, TaskOutcome outcome, ConsumerRun& run) {
    run.outcomes.count(outcome);
    if (run.options.on_outcome) run.options.on_outcome(context, outcome);
}

// Records one result; a claim taken away meanwhile is stale, and only logged.
TaskOutcome record_or_stale(QueueConsumer& consumer, const Task& task, const TaskResult& result, ConsumerRun& run) {
    try {
        return record(consumer, task, result, run);
    } catch (const StaleClaim& error) {
        log().warn("{}: {}", consumer.describe(task), error.what());
        return TaskOutcome::stale;
    }
}

void process(QueueConsumer& consumer, const Task& task, ConsumerRun& run) {
    consumer.heartbeat();
    const TaskContext context = context_of(consumer, task, run);
    const TaskResult result = handle(*run.handler, context);
    conclude(context, record_or_stale(consumer, task, result, run), run);
}

std::vector<TaskResult> handle_batch(const BatchHandler& handler, const std::vector<TaskContext>& contexts) {
    const auto all = [&](const TaskResult& result) { return std::vector<TaskResult>(contexts.size(), result); };
    std::vector<TaskResult> results;
    try {
        results = handler(contexts);
    } catch (const ConsumerHalt&) {
        throw;
    } catch (const std::exception& error) {
        return all(TaskResult::fail(error.what()));
    } catch (...) {
        return all(TaskResult::fail("its handler threw something that is not a std::exception"));
    }
    if (results.size() != contexts.size())
        return all(TaskResult::fail("its batch handler gave " + std::to_string(results.size()) + " results for " +
                                    std::to_string(contexts.size()) + " tasks"));
    return results;
}

// The whole claim to one call of the batch handler; the acknowledgements then go in one round trip.
void process_batch(QueueConsumer& consumer, const std::vector<Task>& tasks, ConsumerRun& run) {
    consumer.heartbeat();
    std::vector<TaskContext> contexts;
    contexts.reserve(tasks.size());
    for (const Task& task : tasks) contexts.push_back(context_of(consumer, task, run));
    const std::vector<TaskResult> results = handle_batch(*run.batch_handler, contexts);
    std::vector<Task> done;
    std::vector<std::size_t> done_at;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (results[i].kind != TaskResult::Kind::ok) continue;
        done.push_back(tasks[i]);
        done_at.push_back(i);
    }
    std::vector<TaskOutcome> outcomes(tasks.size(), TaskOutcome::done);
    if (!done.empty())
        for (std::size_t stale : consumer.ack(done)) {
            outcomes[done_at[stale]] = TaskOutcome::stale;
            log().warn("{}: its claim was taken away before it was acknowledged", consumer.describe(done[stale]));
        }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (results[i].kind != TaskResult::Kind::ok) outcomes[i] = record_or_stale(consumer, tasks[i], results[i], run);
        conclude(contexts[i], outcomes[i], run);
    }
}

// until_empty found nothing to take: whether to look again. Waits (a stop cuts it short) while tasks are
// due but not takeable yet, failed ones wait out their retry delay, or other consumers hold tasks: they are
// this drain's to finish, and leaving them would report a drained queue with work in it. Claims whose
// owner is gone are taken back at once; live owners' are waited for (acknowledged, or failed and run here,
// or taken back once their owner dies). The others (delayed by their producer) are counted.
bool wait_for_backlog(QueueConsumer& consumer, ConsumerRun& run) {
    // Due tasks become takeable within the Redis promote interval or the MySQL claim cursor's reread.
    constexpr milliseconds shortest_wait{20};
    // How often the claims of other consumers are looked at again.
    constexpr milliseconds held_wait{250};
    const std::uint64_t batches = run.batches_seen();  // before the look: a batch ending after it wakes the wait
    const std::size_t held_here_before = run.held_here.load();
    const Backlog backlog = consumer.backlog();
    // The queue counts this run's own claims as held too; only the rest are worth a line. The larger of the
    // two reads never counts a batch that ends during the look as someone else's.
    const std::size_t held_here = std::max(held_here_before, run.held_here.load());
    const std::uint64_t held_elsewhere = backlog.held > held_here ? backlog.held - held_here : 0;
    run.delayed_left = backlog.later;
    if (backlog.waiting == 0 && backlog.held == 0) return false;
    milliseconds wait = std::max(backlog.next_due, shortest_wait);
    if (backlog.waiting == 0) {
        if (held_elsewhere > 0 && !run.said_held.exchange(true))
            log().info("queue {}: waiting for {} task(s) other consumers hold, {} of them by consumers known to be "
                       "gone: each is acknowledged, or fails and runs here, or is taken back once its consumer is "
                       "gone (MySQL: its connection; Redis: its heartbeat, after --heartbeat-timeout)",
                       run.queue, held_elsewhere, backlog.orphaned);
        const ReapResult reaped = consumer.reap();
        if (reaped.released + reaped.dead > 0) {
            run.reaped_dead += reaped.dead;
            log().warn("queue {}: took back {} task(s) of consumers that are gone: {} ready again, {} dead (lost too often)",
                       run.queue, reaped.released + reaped.dead, reaped.released, reaped.dead);
            return true;
        }
        // Those held by this run's own workers end with their batch, which wakes the wait at once.
        run.wait_for_batch(batches, held_wait);
        return true;
    }
    const auto until = std::chrono::steady_clock::now() + wait;
    while (!run.stopping() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::min(stop_check, std::chrono::duration_cast<milliseconds>(
                                                             until - std::chrono::steady_clock::now())));
    return true;
}

}  // namespace

void work(QueueConsumer& consumer, ConsumerRun& run) {
    std::vector<Task> tasks;
    std::size_t next = 0;
    try {
        while (!run.stopping()) {
            tasks = consumer.claim(run.options.batch, run.options.until_empty ? milliseconds(0) : run.options.wait);
            next = 0;
            const std::size_t claimed = tasks.size();
            run.held_here += claimed;
            if (tasks.empty() && run.options.until_empty) {
                if (wait_for_backlog(consumer, run)) continue;
                ++run.drained_workers;
                return;
            }
            if (run.batch_handler != nullptr && !tasks.empty()) {
                process_batch(consumer, tasks, run);
                next = tasks.size();
            }
            for (; next < tasks.size() && !run.stopping(); ++next) process(consumer, tasks[next], run);
            if (next < tasks.size()) {
                consumer.release(std::vector<Task>(tasks.begin() + static_cast<std::ptrdiff_t>(next), tasks.end()));
                run.handed_back += tasks.size() - next;
                tasks.clear();
            }
            run.held_here -= claimed;
            if (run.options.until_empty) run.batch_finished();
        }
    } catch (...) {
        // Best effort: whatever stays claimed comes back through the reaper / recovery anyway.
        try {
            if (next + 1 < tasks.size())
                consumer.release(std::vector<Task>(tasks.begin() + static_cast<std::ptrdiff_t>(next + 1), tasks.end()));
        } catch (const std::exception&) {
        }
        throw;
    }
}

void ConsumerRun::batch_finished() {
    {
        const std::lock_guard lock(batch_mutex_);
        ++batches_finished_;
    }
    batch_done_.notify_all();
}

std::uint64_t ConsumerRun::batches_seen() {
    const std::lock_guard lock(batch_mutex_);
    return batches_finished_;
}

void ConsumerRun::wait_for_batch(std::uint64_t seen, milliseconds longest) {
    std::unique_lock lock(batch_mutex_);
    batch_done_.wait_for(lock, longest, [&] { return batches_finished_ != seen; });
}

void maintain(QueueMaintainer& maintainer, ConsumerRun& run, const std::atomic<std::size_t>& workers_running) {
    constexpr milliseconds maintenance_tick{50};
    while (workers_running.load() > 0 && !run.halt.load()) {
        // Tasks the reaper found dead (taken back too often) went dead during this run too.
        run.reaped_dead += maintainer.tick().dead;
        std::this_thread::sleep_for(maintenance_tick);
    }
}

}  // namespace rowpump::consume
