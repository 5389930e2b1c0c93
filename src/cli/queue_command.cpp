#include "cli/queue_command.hpp"

#include "cli/queue_subcommands.hpp"
#include "cli/schema_flags.hpp"
#include "rowpump/options.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::cli {

namespace {

// Every subcommand names its queue the same way; the Redis names and score unit are the producer's
// (backfill --list-key, ...), so that this side finds its keys.
void add_queue_options(CLI::App& command, QueueOptions& options) {
    using enum OptionId;
    add_schema_options(command, {{queue_source, options.source}, {queue_name, options.queue, required},
                                 {stream_group, options.group},
                                 {priority_lists, options.priority_lists}, {return_to, options.return_list},
                                 {list_key, options.redis_names.list_key},
                                 {delayed_key, options.redis_names.delayed_key},
                                 {delay_score, options.redis_names.delay_score},
                                 {shards, options.shards}});
    // The MySQL and Redis connections of every subcommand wait and retry alike: the same flags as backfill's.
    add_timeout_flags(command, options.timeouts);
}

void add_retry_options(CLI::App& command, QueueOptions& options) {
    using enum OptionId;
    add_schema_options(command, {{max_attempts, options.max_attempts}, {backoff, options.backoff_seconds},
                                 {backoff_cap, options.backoff_cap_seconds}, {max_crashes, options.max_crashes}});
}

void add_claim_timeout(CLI::App& command, QueueOptions& options) {
    using enum OptionId;
    add_schema_options(command, {{claim_timeout, options.claim_timeout_seconds},
                                 {heartbeat_timeout, options.heartbeat_timeout_seconds}});
}

void setup_consume(CLI::App& queue, QueueOptions& options) {
    auto* command = queue.add_subcommand("consume", "Run a handler for every task, with retries and recovery");
    command->footer(
        "Handlers (docs/consumers.md):\n"
        "  --pipe CMD   each worker starts CMD once and keeps it running; it reads one JSON line per task on stdin,\n"
        "               {\"id\":..,\"attempt\":..,\"queue\":..,\"payload\":..}, and answers one line per task, in order:\n"
        "               ok | retry [SECONDS] [reason] | fail [reason] | dead [reason]. Up to --inflight tasks are\n"
        "               outstanding. A handler that exits, crashes, answers something else or passes --task-timeout\n"
        "               is killed and restarted; the tasks it held fail (an attempt) and come back. SIGHUP restarts\n"
        "               every handler after its current tasks.\n"
        "  --exec CMD   a new process per task (about a millisecond each), the payload on stdin, $ROWPUMP_QUEUE,\n"
        "               $ROWPUMP_TASK_ATTEMPT and, for MySQL, $ROWPUMP_TASK_ID set; exit status 0 acknowledges it.\n"
        "               With --exec-batch N, a process per N tasks given as task lines; its exit status counts for all.\n"
        "A plain command line starts directly; one with shell syntax runs through /bin/sh -c.\n"
        "A failed task comes back after a backoff, or goes dead after --max-attempts ($ROWPUMP_TASK_ATTEMPT is the\n"
        "delivery: 1 the first time, one more after each failure and each time it was taken back from a consumer\n"
        "that died).\n"
        "SIGTERM or Ctrl-C: tasks handed to a handler finish, claimed but unstarted ones go back to the queue, exit 0\n"
        "(exit 3 when the server stopped answering: a wait on it ends about a second after the signal).\n"
        "--until-empty exits 0 when the queue is drained, 4 when it is but tasks went dead during the run.\n"
        "\n"
        "Examples:\n"
        "  rowpump queue consume --source redis://127.0.0.1:6379/0 --queue mail --pipe 'php handler.php' --concurrency 2\n"
        "  rowpump queue consume --source mysql://worker@db/app --queue jobs --exec './handle.sh' --concurrency 4\n"
        "  rowpump queue consume --source redis://127.0.0.1:6379/0 --queue mail --priority-lists high,low \\\n"
        "      --exec 'php send.php' --batch 10 --max-attempts 8");
    add_queue_options(*command, options);
    using enum OptionId;
    // A worker runs tasks one way: a process per task (--exec, or per N tasks with --exec-batch) or a persistent
    // handler (--pipe, with its own --inflight and --task-timeout, and no --batch: --inflight is its batch).
    auto* exec_flag = add_schema_option(*command, exec, options.exec);
    auto* pipe_flag = add_schema_option(*command, pipe, options.pipe);
    exec_flag->excludes(pipe_flag);
    add_schema_option(*command, exec_batch, options.exec_batch)->needs(exec_flag);
    add_schema_option(*command, inflight, options.inflight)->needs(pipe_flag);
    add_schema_option(*command, task_timeout, options.task_timeout_seconds)->needs(pipe_flag);
    add_schema_options(*command, {{concurrency, options.concurrency}});
    add_schema_option(*command, batch, options.batch)->excludes(pipe_flag);
    add_schema_options(*command, {{claim_mode, options.claim_mode}});
    add_retry_options(*command, options);
    add_claim_timeout(*command, options);
    add_schema_options(*command, {{reap_interval, options.reap_interval_seconds}, {poll, options.poll_seconds},
                                  {consumer, options.consumer}, {metrics_http, options.http},
                                  {until_empty, options.until_empty},
                                  {log_interval, options.log_interval_seconds}});
}

}  // namespace

CLI::App* setup_queue(CLI::App& app, QueueOptions& options) {
    auto* queue = app.add_subcommand("queue", "Consume and look after a queue: a MySQL queue table or Redis lists");
    queue->require_subcommand(1);
    queue->footer(
        "Examples:\n"
        "  rowpump queue init  --source mysql://app@127.0.0.1:3306/shop --queue jobs\n"
        "  rowpump queue stats --source redis://127.0.0.1:6379/0 --queue mail --json\n"
        "  rowpump queue stats --source redis://127.0.0.1:6379/0 --queue mail --format prometheus\n"
        "  rowpump queue purge --source mysql://app@127.0.0.1:3306/shop --queue jobs --older-than 604800");

    auto* init = queue->add_subcommand("init", "Create the MySQL queue table (Redis needs nothing)");
    add_queue_options(*init, options);

    auto* stats = queue->add_subcommand("stats", "Tasks by state, oldest waiting task, who holds what");
    add_queue_options(*stats, options);
    add_schema_options(*stats, {{OptionId::stats_json, options.json}, {OptionId::stats_format, options.stats_format},
                                {OptionId::exact, options.exact},
                                {OptionId::stats_heartbeat_timeout, options.heartbeat_timeout_seconds}});

    setup_consume(*queue, options);

    auto* reap = queue->add_subcommand("reap", "Give back the tasks of dead or stuck consumers (one pass)");
    add_queue_options(*reap, options);
    add_claim_timeout(*reap, options);
    add_retry_options(*reap, options);

    auto* promote = queue->add_subcommand("promote", "Redis: move due delayed tasks to the ready list (one pass)");
    add_queue_options(*promote, options);

    auto* purge = queue->add_subcommand("purge", "MySQL: delete done tasks, 1000 rows per statement");
    add_queue_options(*purge, options);
    add_schema_options(*purge, {{OptionId::older_than, options.older_than_seconds},
                                {OptionId::purge_batch, options.purge_batch}});

    auto* requeue = queue->add_subcommand("requeue-dead", "Make dead tasks ready again, attempts reset");
    add_queue_options(*requeue, options);
    add_schema_option(*requeue, OptionId::requeue_limit, options.limit);
    return queue;
}

int run_queue(const CLI::App& queue_command, const QueueOptions& options) {
    const auto given = [&](const char* name) { return queue_command.get_subcommand(name)->parsed(); };
    if (given("init")) return run_queue_init(options);
    if (given("stats")) return run_queue_stats(options);
    if (given("consume")) return run_queue_consume(options);
    if (given("reap")) return run_queue_reap(options);
    if (given("promote")) return run_queue_promote(options);
    if (given("purge")) return run_queue_purge(options);
    return run_queue_requeue_dead(options);
}

}  // namespace rowpump::cli
