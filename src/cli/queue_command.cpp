#include "cli/queue_command.hpp"

#include "cli/number_flags.hpp"
#include "cli/queue_subcommands.hpp"
#include "cli/schema_flags.hpp"
#include "rowpump/options.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::cli {

namespace {

// The names and score unit the producer was given (backfill --list-key, ...), so this side finds its keys.
void add_redis_name_options(CLI::App& command, QueueOptions& options) {
    add_schema_option(command, OptionId::list_key, options.list_key);
    add_schema_option(command, OptionId::delayed_key, options.delayed_key);
    add_schema_option(command, OptionId::delay_score, options.delay_score);
}

// Every subcommand names its queue the same way.
void add_queue_options(CLI::App& command, QueueOptions& options) {
    command.add_option("--source", options.source,
                       "Queue URI: mysql://user@host:port/db (or mariadb://; queue table in that database) or "
                       "redis://host:port/db; a password may come from $ROWPUMP_MYSQL_PASSWORD / "
                       "$ROWPUMP_REDIS_PASSWORD (or their _FILE forms) instead of the URI")
        ->envname("ROWPUMP_QUEUE_SOURCE");
    command.add_option("--queue", options.queue, "MySQL queue table, or Redis queue name (key prefix)")->required();
    command.add_option("--priority-lists", options.priority_lists,
                       "Redis: priority list names, highest first (read from <queue>:p:<name>, then <queue>)")
        ->delimiter(',');
    command.add_option("--return-to", options.return_list,
                       "Redis: priority list that retried, promoted and recovered tasks go to (default: <queue>)");
    add_redis_name_options(command, options);
    // The MySQL and Redis connections of every subcommand wait and retry alike: the same flags as backfill's.
    add_timeout_flags(command, options.timeouts);
}

void add_retry_options(CLI::App& command, QueueOptions& options) {
    command.add_option("--max-attempts", options.max_attempts, "A task that fails this many times is dead")
        ->check(whole_number(1, 1'000'000));
    command.add_option("--backoff", options.backoff_seconds,
                       "Seconds before the first retry; doubles with each failure, with jitter")
        ->check(real_number(0, max_flag_seconds));
    command.add_option("--backoff-cap", options.backoff_cap_seconds, "Longest wait before a retry, seconds")
        ->check(real_number(0, max_flag_seconds));
    command.add_option("--max-crashes", options.max_crashes,
                       "MySQL: a task whose claim is taken back this many times (its consumer died or stalled) is dead")
        ->check(whole_number(1, 1'000'000));
}

void add_claim_timeout(CLI::App& command, QueueOptions& options) {
    command.add_option("--claim-timeout", options.claim_timeout_seconds,
                       "MySQL: a claim older than this many seconds is taken back even though its connection lives "
                       "(running tasks renew theirs)")
        ->check(real_number(0, max_flag_seconds));
    command.add_option("--heartbeat-timeout", options.heartbeat_timeout_seconds,
                       "Redis: a consumer silent this many seconds is taken for dead and its tasks recovered")
        ->check(real_number(0, max_flag_seconds));
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
    auto* exec = command->add_option("--exec", options.exec, "Command to run per task (payload on stdin)");
    auto* pipe = command->add_option("--pipe", options.pipe, "Persistent handler command, fed one task line at a time "
                                                              "on stdin, answering one result line per task");
    exec->excludes(pipe);
    command->add_option("--exec-batch", options.exec_batch,
                        "With --exec: one process per N tasks, given as task lines on stdin; its exit status "
                        "acknowledges or fails them all")
        ->check(whole_number(1, 10'000))
        ->needs(exec);
    command->add_option("--inflight", options.inflight,
                        "With --pipe: tasks a worker claims together and hands to its handler before the first "
                        "answer comes back")
        ->check(whole_number(1, 10'000))
        ->needs(pipe);
    command->add_option("--task-timeout", options.task_timeout_seconds,
                        "With --pipe: seconds a handler may take for one task (counted from its previous answer; a new "
                        "handler's first answer gets 5 s more) before it is killed and restarted; 0: no limit")
        ->check(real_number(0, max_flag_seconds))
        ->needs(pipe);
    command->add_option("--concurrency", options.concurrency, "Worker threads, each with its own connection")
        ->check(whole_number(1, 256));
    command->add_option("--batch", options.batch, "Tasks claimed at a time per worker")
        ->check(whole_number(1, 10'000))
        ->excludes(pipe);
    command->add_option("--claim-mode", options.claim_mode,
                        "MySQL claims: skip-locked (default: claimers never wait for each other) or "
                        "update-then-select (no transaction; the faster one in bench/results/queue.md)")
        ->check(CLI::IsMember({"skip-locked", "update-then-select"}));
    add_retry_options(*command, options);
    add_claim_timeout(*command, options);
    command->add_option("--reap-interval", options.reap_interval_seconds,
                        "Seconds between reaper (MySQL) or recovery (Redis) passes; 0: none")
        ->check(real_number(0, max_flag_seconds));
    command->add_option("--poll", options.poll_seconds,
                        "Redis with priority lists: seconds a blocked worker waits on the first list before looking "
                        "at the others")
        ->check(real_number(0, max_flag_seconds));
    command->add_option("--consumer", options.consumer,
                        "Redis: consumer name prefix (workers add :<n>); a stable name takes over what a crashed "
                        "predecessor held at once (default: <host>:<pid>)");
    command->add_option("--http", options.http,
                        "Serve Prometheus metrics on HOST:PORT/metrics (PORT alone: 127.0.0.1): tasks by outcome, "
                        "in flight, durations");
    command->add_flag("--until-empty", options.until_empty,
                      "Stop once no task is ready, held by any consumer or waiting out a retry delay: failed tasks "
                      "are waited for (sleeping until the next is due) and run again; tasks of consumers that are "
                      "gone (MySQL: connection gone; Redis: heartbeat older than --heartbeat-timeout) are taken "
                      "back and run; live consumers' tasks are waited for. Tasks delayed by their producer and not "
                      "due yet are left; their count is logged. Exit 0, or 4 when tasks went dead on the way (the "
                      "last line counts them)");
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
    stats->add_flag("--json", options.json, "Print JSON (the same as --format json)");
    stats->add_option("--format", options.stats_format,
                      "text, json, or prometheus: the Prometheus text format, under the names Sidekiq's and Celery's "
                      "exporters use (sidekiq_queue_enqueued_jobs, sidekiq_queue_latency_seconds, celery_queue_length, "
                      "...) and rowpump_queue_tasks{state} for every state")
        ->check(CLI::IsMember({"text", "json", "prometheus"}));
    stats->add_flag("--exact", options.exact, "MySQL: count every row (default: stop at 10 million per state)");
    stats->add_option("--heartbeat-timeout", options.heartbeat_timeout_seconds,
                      "Redis: a consumer silent this many seconds is shown as expired")
        ->check(real_number(0, max_flag_seconds));

    setup_consume(*queue, options);

    auto* reap = queue->add_subcommand("reap", "Give back the tasks of dead or stuck consumers (one pass)");
    add_queue_options(*reap, options);
    add_claim_timeout(*reap, options);
    add_retry_options(*reap, options);

    auto* promote = queue->add_subcommand("promote", "Redis: move due delayed tasks to the ready list (one pass)");
    add_queue_options(*promote, options);

    auto* purge = queue->add_subcommand("purge", "MySQL: delete done tasks, 1000 rows per statement");
    add_queue_options(*purge, options);
    purge->add_option("--older-than", options.older_than_seconds, "Only tasks done at least this many seconds ago")
        ->check(real_number(0, max_flag_seconds));
    purge->add_option("--batch", options.purge_batch, "Rows per DELETE")->check(whole_number(1, 100'000));

    auto* requeue = queue->add_subcommand("requeue-dead", "Make dead tasks ready again, attempts reset");
    add_queue_options(*requeue, options);
    requeue->add_option("--limit", options.limit, "At most this many, at least 1 (default: all)")
        ->check(whole_number(1));
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
