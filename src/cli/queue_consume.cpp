// `rowpump queue consume`: C worker threads, each with its own connection, take up to N tasks at a time
// and run --exec once per task; a maintenance thread reaps (MySQL) or beats, promotes and recovers
// (Redis). SIGTERM/SIGINT: each worker finishes the task it is running, hands the rest of its batch back
// unprocessed (no attempt counted) and stops; the process exits 0 once all are drained.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "cli/queue_exec.hpp"
#include "cli/queue_source.hpp"
#include "cli/queue_subcommands.hpp"
#include "cli/stop_signal.hpp"
#include "http/http_server.hpp"
#include "log.hpp"
#include "metrics/consumer_metrics.hpp"
#include "metrics/prometheus_text.hpp"

namespace rowpump::cli {

namespace {

using std::chrono::milliseconds;

// How long a worker waits for a task before it looks at the stop flag again.
constexpr milliseconds claim_wait{1000};
// How often a running task's claims get a chance to be renewed.
constexpr milliseconds heartbeat_tick{1000};
constexpr milliseconds maintenance_tick{50};

struct Shared {
    Shared(const QueueOptions& queue_options, const std::atomic<bool>& stop) : options(queue_options), stop_signal(stop) {}

    const QueueOptions& options;
    const std::atomic<bool>& stop_signal;
    std::atomic<bool> abort{false};  // a worker failed: everyone stops
    std::atomic<std::uint64_t> acked{0}, retried{0}, dead{0}, stale{0}, released{0};
    // --until-empty: delayed tasks not due yet, as the last worker to finish saw them.
    std::atomic<std::uint64_t> left_delayed{0};
    std::atomic<bool> said_held{false};  // --until-empty: the wait for other consumers' tasks was logged
    metrics::ConsumerMetrics metrics;  // for --http
    std::mutex error_mutex;
    std::exception_ptr first_error;

    bool stopping() const { return stop_signal.load() || abort.load(); }
    void fail_all(std::exception_ptr error) {
        {
            const std::lock_guard lock(error_mutex);
            if (!first_error) first_error = std::move(error);
        }
        abort = true;
    }
};

std::vector<std::string> task_environment(const QueueOptions& options, const Task& task) {
    std::vector<std::string> environment{"ROWPUMP_QUEUE=" + options.queue,
                                         "ROWPUMP_TASK_ATTEMPT=" + std::to_string(task.deliveries)};
    if (task.id != 0) environment.push_back("ROWPUMP_TASK_ID=" + std::to_string(task.id));
    return environment;
}

void process(QueueConsumer& consumer, const Task& task, Shared& shared) {
    consumer.heartbeat();
    shared.metrics.started();
    struct InFlight {  // until the task is handled, or handling it threw
        metrics::ConsumerMetrics& metrics;
        ~InFlight() { metrics.ended(); }
    } in_flight{shared.metrics};
    const auto started = std::chrono::steady_clock::now();
    const CommandResult result = run_task_command(shared.options.exec, task.payload, task_environment(shared.options, task),
                                             heartbeat_tick, [&] { consumer.heartbeat(); });
    shared.metrics.took(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    try {
        if (result.succeeded) {
            consumer.ack(task);
            ++shared.acked;
            shared.metrics.count(metrics::TaskOutcome::processed);
            return;
        }
        log().debug("{} that failed has the payload {}", consumer.describe(task), task.payload);
        if (consumer.fail(task, result.failure) == FailOutcome::dead) {
            ++shared.dead;
            shared.metrics.count(metrics::TaskOutcome::dead);
            log().error("{} failed ({}): attempt {} of {}, now dead", consumer.describe(task), result.failure,
                        task.attempts + 1, shared.options.max_attempts);
        } else {
            ++shared.retried;
            shared.metrics.count(metrics::TaskOutcome::retried);
            log().warn("{} failed ({}): attempt {} of {}, will retry", consumer.describe(task), result.failure,
                       task.attempts + 1, shared.options.max_attempts);
        }
    } catch (const StaleClaim& error) {
        ++shared.stale;
        shared.metrics.count(metrics::TaskOutcome::stale);
        log().warn("{}: {}", consumer.describe(task), error.what());
    }
}

// --until-empty found nothing to take: whether to look again. Waits (a stop cuts it short) while tasks are
// due but not takeable yet, failed ones wait out their retry delay, or other consumers hold tasks: they are
// this drain's to finish, and leaving them would exit 0 with work in the queue. Claims whose owner is gone
// are taken back at once; live owners' are waited for (acknowledged, or failed and run here, or taken back
// once their owner dies). The others (delayed by their producer) are counted.
bool wait_for_backlog(QueueConsumer& consumer, Shared& shared) {
    // Due tasks become takeable within the Redis promote interval or the MySQL claim cursor's reread.
    constexpr milliseconds shortest_wait{20};
    // How often the claims of other consumers are looked at again.
    constexpr milliseconds held_wait{250};
    const Backlog backlog = consumer.backlog();
    shared.left_delayed = backlog.later;
    if (backlog.waiting == 0 && backlog.held == 0) return false;
    milliseconds wait = std::max(backlog.next_due, shortest_wait);
    if (backlog.waiting == 0) {
        if (!shared.said_held.exchange(true))
            log().info("queue {}: waiting for {} task(s) other consumers hold, {} of them by consumers known to be "
                       "gone: each is acknowledged, or fails and runs here, or is taken back once its consumer is "
                       "gone (MySQL: its connection; Redis: its heartbeat, after --heartbeat-timeout)",
                       shared.options.queue, backlog.held, backlog.orphaned);
        const ReapResult reaped = consumer.reap();
        if (reaped.released + reaped.dead > 0) {
            shared.dead += reaped.dead;
            log().warn("queue {}: took back {} task(s) of consumers that are gone: {} ready again, {} dead (lost too often)",
                       shared.options.queue, reaped.released + reaped.dead, reaped.released, reaped.dead);
            return true;
        }
        wait = held_wait;
    }
    const auto until = std::chrono::steady_clock::now() + wait;
    while (!shared.stopping() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::min(claim_wait, std::chrono::duration_cast<milliseconds>(
                                                            until - std::chrono::steady_clock::now())));
    return true;
}

void work(QueueConsumer& consumer, Shared& shared) {
    std::vector<Task> tasks;
    std::size_t next = 0;
    try {
        while (!shared.stopping()) {
            tasks = consumer.claim(shared.options.batch, shared.options.until_empty ? milliseconds(0) : claim_wait);
            next = 0;
            if (tasks.empty() && shared.options.until_empty) {
                if (wait_for_backlog(consumer, shared)) continue;
                return;
            }
            for (; next < tasks.size() && !shared.stopping(); ++next) process(consumer, tasks[next], shared);
            if (next < tasks.size()) {
                consumer.release(std::vector<Task>(tasks.begin() + static_cast<std::ptrdiff_t>(next), tasks.end()));
                shared.released += tasks.size() - next;
                tasks.clear();
            }
        }
    } catch (...) {
        shared.fail_all(std::current_exception());
        // Best effort: whatever stays claimed comes back through the reaper / recovery anyway.
        try {
            if (next + 1 < tasks.size())
                consumer.release(std::vector<Task>(tasks.begin() + static_cast<std::ptrdiff_t>(next + 1), tasks.end()));
        } catch (const std::exception&) {
        }
    }
}

void maintain(QueueMaintainer& maintainer, Shared& shared, const std::atomic<bool>& workers_done) {
    try {
        while (!workers_done.load() && !shared.abort.load()) {
            // Tasks the reaper found dead (taken back too often) went dead during this run too.
            shared.dead += maintainer.tick().dead;
            std::this_thread::sleep_for(maintenance_tick);
        }
    } catch (...) {
        shared.fail_all(std::current_exception());
    }
}

}  // namespace

int run_queue_consume(const QueueOptions& options) {
    if (options.exec.empty()) throw UsageError("queue consume needs --exec CMD: the command to run for each task");
    QueueSource source = parse_queue_source(options);
    // A command that exits without reading its stdin must not kill us with SIGPIPE (see run_task_command).
    ::signal(SIGPIPE, SIG_IGN);
    Shared shared(options, install_stop_signals(consumer_stop_message, consumer_second_stop_message));
    // A stop also ends a wait on a Redis server that stopped answering, within about a second.
    if (source.redis) source.redis->stop = &shared.stop_signal;

    std::vector<std::unique_ptr<QueueConsumer>> consumers;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < options.concurrency; ++i) {
        consumers.push_back(open_consumer(source, options, i));
        names.push_back(consumers.back()->name());
    }
    auto maintainer = open_maintainer(source, options, names);
    std::unique_ptr<http::Server> endpoint;
    if (!options.http.empty())
        endpoint = std::make_unique<http::Server>(
            options.http,
            [&shared](const http::Request& request) -> http::Response {
                if (request.method == "GET" && request.path == "/metrics")
                    return {200, metrics::PrometheusText::content_type, shared.metrics.page(shared.options.queue)};
                return {404, "text/plain", "GET /metrics only\n"};
            },
            "consumer metrics (/metrics)");
    log().info("consuming queue {} from {}: {} worker(s), batch {}{}", options.queue, source.redacted,
               options.concurrency, options.batch, options.until_empty ? ", until it is empty" : "");

    std::atomic<bool> workers_done{false};
    std::thread maintenance([&] { maintain(*maintainer, shared, workers_done); });
    std::vector<std::thread> workers;
    for (auto& consumer : consumers) workers.emplace_back([&shared, &consumer] { work(*consumer, shared); });
    for (auto& worker : workers) worker.join();
    workers_done = true;
    maintenance.join();
    // After a failure, no sign-off: when the server is what failed, it would only wait out another retry
    // budget; a consumer that did not sign off is forgotten by the next reap, with nothing to recover.
    for (auto& consumer : consumers) {
        if (shared.abort.load()) break;
        try {
            consumer->leave();
        } catch (const Error& error) {
            log().warn("cannot sign off consumer {}: {}", consumer->name(), error.what());
        }
    }

    if (options.until_empty && shared.left_delayed.load() > 0)
        log().info("queue {}: {} delayed task(s) are not due yet and stay in the queue", options.queue,
                   shared.left_delayed.load());
    // The last line: a script that drains a queue can tell from it, and from the exit status, that tasks
    // went dead on the way.
    const bool some_dead = options.until_empty && shared.dead.load() > 0;
    log().log(some_dead ? spdlog::level::warn : spdlog::level::info,
        "queue {}: {} done, {} failed and retried later, {} dead, {} stale, {} handed back{}{}", options.queue,
        shared.acked.load(), shared.retried.load(), shared.dead.load(), shared.stale.load(), shared.released.load(),
        shared.stop_signal.load() ? " (stopped by a signal)" : "",
        some_dead ? "; exit status 4: tasks went dead (queue requeue-dead runs them again)" : "");
    if (shared.first_error) std::rethrow_exception(shared.first_error);
    return some_dead ? static_cast<int>(ExitCode::tasks_dead) : 0;
}

}  // namespace rowpump::cli
