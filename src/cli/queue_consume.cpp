// `rowpump queue consume`: the library's consumers (run_consumers, rowpump/consumer.hpp) with a handler
// that runs --exec once per task; they claim, acknowledge, retry, recover and drain. This file turns the
// flags into their options, serves the status page, /status, /metrics and POST /requeue-dead (--http,
// cli/consumer_endpoint.hpp) and writes the run's last lines. SIGTERM/SIGINT: each
// worker finishes the task it is running, hands the rest of its batch back unprocessed (no attempt
// counted) and stops; the process exits 0 once all are drained.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/consume_log.hpp"
#include "cli/consumer_endpoint.hpp"
#include "cli/dead_tasks.hpp"
#include "cli/queue_source.hpp"
#include "cli/queue_subcommands.hpp"
#include "cli/stop_signal.hpp"
#include "cli/reload_signal.hpp"
#include "config/option_error.hpp"
#include "handler/exec_handlers.hpp"
#include "handler/pipe_handlers.hpp"
#include "log.hpp"
#include "metrics/consumer_metrics.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::cli {

namespace {

// Counts a handler's work for /metrics: in flight while it runs, and how long it took; and keeps its
// reasons for the dead tasks that /status shows.
template <class Call>
auto measured(metrics::ConsumerMetrics& counters, const TaskContext* contexts, std::size_t tasks, Call&& call) {
    for (std::size_t i = 0; i < tasks; ++i) counters.started();
    struct InFlight {  // until the handler returned or threw
        metrics::ConsumerMetrics& counters;
        std::size_t tasks;
        ~InFlight() {
            for (std::size_t i = 0; i < tasks; ++i) counters.ended();
        }
    } in_flight{counters, tasks};
    const auto started = std::chrono::steady_clock::now();
    auto result = [&] {
        try {
            return call();
        } catch (const std::exception& error) {
            DeadTasks::threw(contexts, tasks, error.what());
            throw;
        }
    }();
    DeadTasks::answered(contexts, result);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (std::size_t i = 0; i < tasks; ++i) counters.took(seconds / static_cast<double>(tasks));
    return result;
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
    if (options.exec.empty() == options.pipe.empty())
        throw UsageError("queue consume needs a handler: --pipe CMD (a process kept running, fed tasks on stdin) or "
                         "--exec CMD (a process per task)");
    if (options.exec_batch > 0 && options.batch != 1)
        throw UsageError("--exec-batch N claims N tasks at a time: leave out --batch");
    ConsumerOptions consumer = consumer_options(options);
    check_claim_timeout(consumer);
    if (options.exec_batch > 0) consumer.batch = options.exec_batch;
    if (!options.pipe.empty()) consumer.batch = options.inflight;
    // A command that exits without reading its stdin must not kill us with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    consumer.stop = &install_stop_signals(consumer_stop_message, consumer_second_stop_message);

    metrics::ConsumerMetrics counters;  // for --http
    DeadTasks dead;
    std::unique_ptr<ConsumerEndpoint> endpoint;
    if (!options.http.empty()) endpoint = std::make_unique<ConsumerEndpoint>(options, consumer, counters, dead);
    // --log-interval's lines, and -v's per task; they end before the run's last lines.
    ConsumeLog pace(options.queue, flag_milliseconds(options.log_interval_seconds, config::OptionId::log_interval), counters);
    consumer.on_outcome = [&counters, &pace, &dead](const TaskContext& task, TaskOutcome outcome) {
        counters.count(outcome);
        dead.concluded(task, outcome);
        pace.concluded(task, outcome);
    };
    consumer.on_finished = [&options, &pace](const ConsumerReport& report) {
        pace.stop();
        write_last_lines(options, report);
    };

    ConsumerReport report;
    if (!options.pipe.empty()) {
        handler::PipeOptions pipe{options.pipe, flag_milliseconds(options.task_timeout_seconds, config::OptionId::task_timeout),
                                  {"ROWPUMP_QUEUE=" + options.queue}};
        handler::PipeHandlers handlers(std::move(pipe));
        const ReloadSignal reload([&handlers] { handlers.restart(); });
        report = run_batch_consumers(consumer, [&](const std::vector<TaskContext>& tasks) {
            auto& answers = ConsumeLog::answer_times();
            return measured(counters, tasks.data(), tasks.size(), [&] {
                return pace.timed(tasks.data(), tasks.size(), &answers, [&] { return handlers.run(tasks, &answers); });
            });
        });
    } else if (options.exec_batch > 0) {
        report = run_batch_consumers(consumer, [&](const std::vector<TaskContext>& tasks) {
            return measured(counters, tasks.data(), tasks.size(), [&] {
                return pace.timed(tasks.data(), tasks.size(), nullptr,
                                  [&] { return handler::run_exec_batch(options.exec, tasks); });
            });
        });
    } else {
        report = run_consumers(consumer, [&](const TaskContext& task) {
            return measured(counters, &task, 1, [&] {
                return pace.timed(&task, 1, nullptr, [&] { return handler::run_exec(options.exec, task); });
            });
        });
    }
    return exits_dead(options, report) ? static_cast<int>(ExitCode::tasks_dead) : 0;
}

}  // namespace rowpump::cli
