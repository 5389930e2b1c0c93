// `rowpump queue consume`: the library's consumers (run_consumers, rowpump/consumer.hpp) with a handler
// that runs --exec once per task; they claim, acknowledge, retry, recover and drain. This file turns the
// flags into their options, serves /metrics (--http) and writes the run's last lines. SIGTERM/SIGINT: each
// worker finishes the task it is running, hands the rest of its batch back unprocessed (no attempt
// counted) and stops; the process exits 0 once all are drained.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/queue_exec.hpp"
#include "cli/queue_source.hpp"
#include "cli/queue_subcommands.hpp"
#include "cli/stop_signal.hpp"
#include "config/option_error.hpp"
#include "http/http_server.hpp"
#include "log.hpp"
#include "metrics/consumer_metrics.hpp"
#include "metrics/prometheus_text.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::cli {

namespace {

// How often a running command's claims get a chance to be renewed.
constexpr std::chrono::milliseconds heartbeat_tick{1000};

std::vector<std::string> task_environment(const TaskContext& task) {
    std::vector<std::string> environment{"ROWPUMP_QUEUE=" + std::string(task.queue),
                                         "ROWPUMP_TASK_ATTEMPT=" + std::to_string(task.attempt)};
    if (task.id != 0) environment.push_back("ROWPUMP_TASK_ID=" + std::to_string(task.id));
    return environment;
}

// The handler: the command's exit status 0 acknowledges the task, anything else fails it. A command that
// cannot be started at all stops the run (ConsumerHalt), as it always did.
TaskResult run_command(const std::string& command, const TaskContext& task, metrics::ConsumerMetrics& counters) {
    counters.started();
    struct InFlight {  // until the command ended, or starting it threw
        metrics::ConsumerMetrics& counters;
        ~InFlight() { counters.ended(); }
    } in_flight{counters};
    const auto started = std::chrono::steady_clock::now();
    CommandResult result;
    try {
        result = run_task_command(command, task.payload, task_environment(task), heartbeat_tick, task.heartbeat);
    } catch (const Error& error) {
        throw ConsumerHalt(error.what());
    }
    counters.took(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return result.succeeded ? TaskResult::ok() : TaskResult::fail(result.failure);
}

metrics::TaskOutcome metric(TaskOutcome outcome) {
    switch (outcome) {
        case TaskOutcome::done: return metrics::TaskOutcome::processed;
        case TaskOutcome::retried: return metrics::TaskOutcome::retried;
        case TaskOutcome::dead: return metrics::TaskOutcome::dead;
        case TaskOutcome::stale: break;
    }
    return metrics::TaskOutcome::stale;
}

bool exits_dead(const QueueOptions& options, const ConsumerReport& report) {
    return options.until_empty && report.dead > 0;
}

// Also after a failure, before its error line.
void write_last_lines(const QueueOptions& options, const ConsumerReport& report) {
    if (options.until_empty && report.delayed_left > 0)
        log().info("queue {}: {} delayed task(s) are not due yet and stay in the queue", options.queue,
                   report.delayed_left);
    // The last line: a script that drains a queue can tell from it, and from the exit status, that tasks
    // went dead on the way.
    const bool some_dead = exits_dead(options, report);
    log().log(some_dead ? spdlog::level::warn : spdlog::level::info,
              "queue {}: {} done, {} failed and retried later, {} dead, {} stale, {} handed back{}{}", options.queue,
              report.done, report.retried, report.dead, report.stale, report.handed_back,
              report.stopped ? " (stopped by a signal)" : "",
              some_dead ? "; exit status 4: tasks went dead (queue requeue-dead runs them again)" : "");
}

}  // namespace

int run_queue_consume(const QueueOptions& options) {
    if (options.exec.empty()) throw UsageError("queue consume needs --exec CMD: the command to run for each task");
    ConsumerOptions consumer = consumer_options(options);
    check_claim_timeout(consumer);
    // A command that exits without reading its stdin must not kill us with SIGPIPE (see run_task_command).
    ::signal(SIGPIPE, SIG_IGN);
    consumer.stop = &install_stop_signals(consumer_stop_message, consumer_second_stop_message);

    metrics::ConsumerMetrics counters;  // for --http
    std::unique_ptr<http::Server> endpoint;
    if (!options.http.empty())
        endpoint = std::make_unique<http::Server>(
            options.http,
            [&](const http::Request& request) -> http::Response {
                if (request.method == "GET" && request.path == "/metrics")
                    return {200, metrics::PrometheusText::content_type, counters.page(options.queue)};
                return {404, "text/plain", "GET /metrics only\n"};
            },
            "consumer metrics (/metrics)", config::OptionId::metrics_http);
    consumer.on_outcome = [&counters](const TaskContext&, TaskOutcome outcome) { counters.count(metric(outcome)); };
    consumer.on_finished = [&options](const ConsumerReport& report) { write_last_lines(options, report); };

    const ConsumerReport report = run_consumers(
        consumer, [&](const TaskContext& task) { return run_command(options.exec, task, counters); });
    return exits_dead(options, report) ? static_cast<int>(ExitCode::tasks_dead) : 0;
}

}  // namespace rowpump::cli
