// The options of `rowpump queue ...`: the queue every subcommand names, then consume's and reap's, stats',
// purge's and requeue-dead's own. The Redis key names (--list-key, ...) and the timeouts are a job's
// options, shared (option_schema.cpp).
#include "config/option_makers.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::config::makers {

namespace {

using enum OptionId;

constexpr NumberBounds seconds{0, max_user_seconds, false};

std::vector<OptionSpec> queue_naming() {
    OptionSpec source = text(queue_source, "--source", "",
                             "Queue URI: mysql://user@host:port/db (or mariadb://; queue table in that database) or "
                             "redis://host:port/db (or rediss://, redis+unix://, redis-sentinel://, redis-cluster://); a "
                             "password may come from $ROWPUMP_MYSQL_PASSWORD / "
                             "$ROWPUMP_REDIS_PASSWORD (or their _FILE forms) instead of the URI");
    source.env = "ROWPUMP_QUEUE_SOURCE";
    return {
        source,
        text(queue_name, "--queue", "", "MySQL queue table, or Redis queue name (key prefix)"),
        text(stream_group, "--group", "",
             "Redis: the queue is a stream (backfill --push xadd), read through this consumer group, created at the "
             "first entry when missing (docs/streams.md)"),
        names(priority_lists, "--priority-lists", "",
              "Redis: priority list names, highest first (read from <queue>:p:<name>, then <queue>)"),
        text(return_to, "--return-to", "",
             "Redis: priority list that retried, promoted and recovered tasks go to (default: <queue>)"),
    };
}

std::vector<OptionSpec> consuming() {
    const RetryPolicy retry;
    using Seconds = std::chrono::duration<double>;
    return {
        text(exec, "--exec", "", "Command to run per task, payload on stdin (/bin/sh -c runs shell syntax, exit ...)"),
        text(pipe, "--pipe", "",
             "Persistent handler command, fed one task line at a time on stdin, answering one result line per task "
             "(docs/consumers.md)"),
        whole(exec_batch, "--exec-batch", "",
              "With --exec: one process per N tasks, given as task lines on stdin; its exit status acknowledges or "
              "fails them all",
              {1, 10'000}, std::nullopt),
        whole(inflight, "--inflight", "",
              "With --pipe: tasks a worker claims together and hands to its handler before the first answer comes back",
              {1, 10'000}, 32),
        real(task_timeout, "--task-timeout", "",
             "With --pipe: seconds a handler may take for one task (counted from its previous answer; a new "
             "handler's first answer gets 5 s more) before it is killed and restarted; 0: no limit",
             seconds, 300),
        whole(concurrency, "--concurrency", "", "Worker threads, each with its own connection", {1, 256}, 1),
        whole(batch, "--batch", "", "Tasks claimed at a time per worker", {1, 10'000}, 1),
        choice(claim_mode, "--claim-mode", "",
               "MySQL claims: skip-locked (default: claimers never wait for each other) or update-then-select (no "
               "transaction; the faster one in bench/results/queue.md)",
               MySqlQueueOptions{}.claim_mode),
        whole(max_attempts, "--max-attempts", "", "A task that fails this many times is dead", {1, 1'000'000},
              static_cast<std::uint64_t>(retry.max_attempts)),
        real(backoff, "--backoff", "", "Seconds before the first retry; doubles with each failure, with jitter",
             seconds, Seconds(retry.backoff_base).count()),
        real(backoff_cap, "--backoff-cap", "", "Longest wait before a retry, seconds", seconds,
             Seconds(retry.backoff_cap).count()),
        whole(max_crashes, "--max-crashes", "",
              "MySQL: a task whose claim is taken back this many times (its consumer died or stalled) is dead",
              {1, 1'000'000}, static_cast<std::uint64_t>(MySqlQueueOptions{}.max_crashes)),
        real(claim_timeout, "--claim-timeout", "",
             "MySQL: a claim older than this many seconds is taken back even though its connection lives (running "
             "tasks renew theirs)",
             seconds, 300),
        real(heartbeat_timeout, "--heartbeat-timeout", "",
             "Redis: a consumer silent this many seconds is taken for dead and its tasks recovered", seconds, 30),
        real(reap_interval, "--reap-interval", "",
             "Seconds between reaper (MySQL) or recovery (Redis) passes; 0: none", seconds, 5),
        real(poll, "--poll", "",
             "Redis with priority lists: seconds a blocked worker waits on the first list before looking at the "
             "others",
             seconds, 0.1),
        text(consumer, "--consumer", "",
             "Redis: consumer name prefix (workers add :<n>); a stable name takes over what a crashed predecessor "
             "held at once (default: <host>:<pid>)"),
        text(metrics_http, "--http", "",
             "Serve a status page at /, /status, Prometheus metrics at /metrics (tasks by outcome, in flight, "
             "durations) and POST /requeue-dead on HOST:PORT (PORT alone: 127.0.0.1); POSTs take the token of "
             "ROWPUMP_HTTP_TOKEN[_FILE] as backfill's --http does"),
        real(log_interval, "--log-interval", "",
             "Seconds between info lines on stderr with the interval's tasks, rate, outcomes, latency percentiles "
             "(from a task's hand-over to its handler to its answer; --pipe times each answer line) and tasks in "
             "flight; an interval with no task and none in flight writes none; 0: none. -v adds a line per task",
             {0.1, 86'400, true}, 10),
        flag(until_empty, "--until-empty", "",
             "Stop once no task is ready, held by any consumer or waiting out a retry delay: failed tasks are waited "
             "for (sleeping until the next is due) and run again; tasks of consumers that are gone (MySQL: "
             "connection gone; Redis: heartbeat older than --heartbeat-timeout) are taken back and run; live "
             "consumers' tasks are waited for. Tasks delayed by their producer and not due yet are left; their "
             "count is logged. Exit 0, or 4 when tasks went dead on the way (the last line counts them)"),
    };
}

std::vector<OptionSpec> stats() {
    return {
        flag(stats_json, "--json", "", "Print JSON (the same as --format json)"),
        named_choice(stats_format, "--format",
                     "text, json, or prometheus: the Prometheus text format, under the names Sidekiq's and Celery's "
                     "exporters use (sidekiq_queue_enqueued_jobs, sidekiq_queue_latency_seconds, "
                     "celery_queue_length, ...) and rowpump_queue_tasks{state} for every state",
                     {"text", "json", "prometheus"}),
        flag(exact, "--exact", "", "MySQL: count every row (default: stop at 10 million per state)"),
        real(stats_heartbeat_timeout, "--heartbeat-timeout", "",
             "Redis: a consumer silent this many seconds is shown as expired", seconds, 30),
    };
}

}  // namespace

std::vector<OptionSpec> queue_option_table() {
    std::vector<OptionSpec> options;
    for (auto group : {in_scope("queue", queue_naming()), in_scope("queue consume, queue reap", consuming()),
                       in_scope("queue stats", stats()),
                       in_scope("queue purge",
                                {real(older_than, "--older-than", "", "Only tasks done at least this many seconds ago",
                                      seconds, 86'400),
                                 whole(purge_batch, "--batch", "", "Rows per DELETE", {1, 100'000}, 1000)}),
                       in_scope("queue requeue-dead",
                                {whole(requeue_limit, "--limit", "", "At most this many, at least 1 (default: all)",
                                       {1, UINT64_MAX}, std::nullopt)})})
        for (auto& spec : group) options.push_back(std::move(spec));
    return options;
}

}  // namespace rowpump::config::makers
