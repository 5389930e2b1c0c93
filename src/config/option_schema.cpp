#include "config/option_schema.hpp"

#include <optional>
#include <stdexcept>

#include "config/choices.hpp"
#include "config/option_makers.hpp"
#include "rowpump/job.hpp"

namespace rowpump::config {

namespace {

using enum OptionId;
using namespace makers;

constexpr std::uint64_t largest_page = 1'000'000;
constexpr WholeBounds seconds_or_forever{0, 86'400};

std::vector<OptionSpec> source_options() {
    const ReadSpec read;
    const ServerTimeouts timeouts;
    return {
        text(mysql, "--mysql", "source.mysql",
             "Source URL mysql://user[:pass]@host:port/db (default: $ROWPUMP_MYSQL_URL; a password may come from "
             "$ROWPUMP_MYSQL_PASSWORD or the file in $ROWPUMP_MYSQL_PASSWORD_FILE)"),
        text(table, "--table", "source.table", "Table to read, as name or schema.name"),
        names(key, "--key", "source.key",
              "Paging key column(s), comma-separated (default: the primary key, else the smallest unique NOT NULL "
              "index); a non-unique column gets the primary key appended"),
        names(columns, "--columns", "source.columns", "Columns to read, comma-separated (default: all)"),
        text(where, "--where", "source.where",
             "SQL condition the rows must meet: one expression with balanced parentheses, no ';' or '?' outside "
             "quotes (note LIKE '%?%' is fine), and a -- or # comment must end in a newline"),
        choice(strategy, "--strategy", "source.strategy", "Paging strategy", PagingStrategy::keyset),
        choice(null_keys, "--null-keys", "source.null_keys",
               "Rows with a NULL key: refuse (say how many) or first (read them first, by primary key)",
               NullKeys::refuse),
        whole(page_size, "--page-size", "source.page_size",
              "Rows per page (default: " + std::to_string(read.page_size) + ")", {1, largest_page}, read.page_size),
        whole(page_time_ms, "--page-time-ms", "source.page_time_ms",
              "Adapt page size toward this time per page (0: keep --page-size fixed)", {0, 3'600'000}, 250),
        whole(max_page_size, "--max-page-size", "source.max_page_size",
              "Largest adaptive page, at least --page-size (default: " + std::to_string(read.max_page_size) +
                  ", or --page-size when larger)",
              {1, largest_page}, read.max_page_size),
        text(set_vars, "--set-vars", "source.set_vars",
             "Session variables for every source connection, name=value,... (e.g. "
             "innodb_lock_wait_timeout=5,max_statement_time=30); a value is a number, DEFAULT or a plain word. "
             "Checked before anything is read: a name the server does not know is refused"),
        flag(consistent_snapshot, "--consistent-snapshot", "source.consistent_snapshot",
             "Every worker reads one snapshot of the table, started together under a brief LOCK TABLES ... READ "
             "(needs the LOCK TABLES privilege; writes to the table wait meanwhile). A lost reader connection fails "
             "the run. Not with --job-id or --follow"),
        // In a job file, the timeouts are parameters of the source URL (?read_timeout=S).
        whole(read_timeout, "--read-timeout", "",
              "Seconds one socket read may wait for a server (MySQL or Redis) that stopped answering, 0 forever "
              "(default " + std::to_string(timeouts.read_timeout.count()) +
                  "; a page read waits --page-timeout + 5 s, a blocking pop its block time on top)",
              seconds_or_forever, timeouts.read_timeout.count()),
        whole(write_timeout, "--write-timeout", "",
              "Seconds one socket write to MySQL or Redis may stall, 0 forever (default " +
                  std::to_string(timeouts.write_timeout.count()) + ")",
              seconds_or_forever, timeouts.write_timeout.count()),
        whole(retry_budget, "--retry-budget", "",
              "Seconds a lost connection, timed-out read, deadlock or server restart is retried, from its first "
              "failure, before the command fails (default " + std::to_string(timeouts.retry_budget.count()) +
                  "), for the source, the sink's server and the job store alike. A server that is frozen, not down, "
                  "ends the command after about --read-timeout plus this",
              seconds_or_forever, timeouts.retry_budget.count()),
        whole(page_timeout, "--page-timeout", "",
              "Seconds the server lets one page query run (max_statement_time), 0 no limit (default " +
                  std::to_string(read.page_timeout.count()) + ")",
              seconds_or_forever, read.page_timeout.count()),
    };
}

std::vector<OptionSpec> sink_options() {
    const SinkSpec defaults;
    return {
        text(OptionId::sink, "--sink", "sink.uri",
             "stdout | file:PATH | redis://host:port/db | mysql://user@host:port/db; Redis also as rediss://, "
             "redis+unix://, redis-sentinel:// or redis-cluster://",
             "stdout"),
        text(queue, "--queue", "sink.queue", "Redis list (key prefix) or MySQL queue table"),
        choice(format, "--format", "sink.format",
               "Payload format: json, csv, template (--template), or jobs for existing workers: sidekiq, "
               "activejob (Rails ActiveJob on Sidekiq), celery, bullmq (docs/worker-formats.md)",
               Format::json),
        choice(push, "--push", "sink.push", "Redis push side: rpush (the default), lpush, or xadd (one entry a row into the stream --queue; "
               "docs/streams.md); not with sidekiq, activejob or celery",
               PushSide::right),
        text(priority_column, "--priority-column", "sink.priority.column", "Numeric column that routes rows to lists"),
        text(priority, "--priority", "sink.priority.levels",
             "Levels, highest first, as name:min,...,name (rows >= min go there; the last takes the rest)"),
        real(delay, "--delay", "sink.delay", "Make every row a delayed task due in this many seconds",
             {0, max_user_seconds, false}, 0),
        text(due_column, "--due-column", "sink.due_column", "DATETIME column with each row's due time (delayed set)"),
        flag(overwrite, "--overwrite", "sink.overwrite", "file:PATH: replace the file when it exists (default: refuse)"),
        text(job_class, "--job-class", "sink.job_class",
             "--format sidekiq or activejob: the job class its workers run (a Ruby constant path, e.g. "
             "Billing::InvoiceJob)"),
        text(task, "--task", "sink.task", "--format celery: the registered name of the task its workers run"),
        choice(sidekiq_timestamps, "--sidekiq-timestamps", "sink.sidekiq_timestamps",
               "--format sidekiq or activejob: created_at/enqueued_at as float seconds (Sidekiq 6, 7) or integer ms "
               "(Sidekiq 8)",
               SidekiqTimestamps::seconds),
        text(sidekiq_retry, "--sidekiq-retry", "sink.sidekiq_retry",
             "--format sidekiq or activejob: the job's \"retry\": a count (0: a failure goes to the dead set) or "
             "false (never retried nor kept)",
             "true"),
        text(sidekiq_dead, "--sidekiq-dead", "sink.sidekiq_dead",
             "--format sidekiq or activejob: false drops a job out of retries instead of keeping it in the dead set",
             "true"),
        names(sidekiq_field, "--sidekiq-field", "sink.sidekiq_fields",
              "--format sidekiq or activejob: K=V, one more key of the job with a string value (repeatable, or "
              "comma-separated)"),
        names(sidekiq_tags, "--sidekiq-tags", "sink.sidekiq_tags",
              "--format sidekiq or activejob: the job's tags, comma-separated (Sidekiq's Web UI shows them)"),
        real(celery_expires, "--celery-expires", "sink.celery_expires",
             "--format celery: seconds after enqueueing when a task not yet started is revoked instead of run",
             {0, max_user_seconds, false}, 0),
        names(celery_kwargs, "--celery-kwargs", "sink.celery_kwargs",
              "--format celery: columns passed as keyword arguments, left out of the row argument"),
        text(routing_key, "--routing-key", "sink.routing_key",
             "--format celery: the message's routing key (default: the queue)"),
        text(celery_priority, "--celery-priority", "sink.celery_priority",
             "--format celery: the message's priority, 0 to 9; kombu's Redis transport keeps each of its steps (0, "
             "3, 6, 9) in a list of its own, Q\\x06\\x16<step>, and its workers take step 0 first"),
        text(celery_priority_column, "--celery-priority-column", "sink.celery_priority_column",
             "--format celery: an integer column holding each row's priority, 0 to 9 (NULL: 0), which goes to its "
             "step's list as with --celery-priority; a value outside 0..9 stops the run, naming the row. Not with "
             "--celery-priority"),
        text(job_name, "--job-name", "sink.job_name",
             "--format bullmq: the jobs' name, job.name in the Worker's processor"),
        text(bullmq_job_id, "--bullmq-job-id", "sink.bullmq_job_id",
             "--format bullmq: each job's id from its row, a template such as 'order-{id}' ({column} the value; "
             "default: BullMQ's counter). An id already in the queue is skipped, as BullMQ does"),
        text(bullmq_prefix, "--bullmq-prefix", "sink.bullmq_prefix",
             "--format bullmq: BullMQ's key prefix (its `prefix` option), keys <prefix>:<queue>:wait ...", "bull"),
        text(payload_template, "--template", "sink.template",
             "--format template: {column} raw value, {column:json}, {row} (the row's JSON), {{ }} braces"),
        choice(big_numbers, "--big-numbers", "sink.big_numbers",
               "JSON: DECIMAL and integers beyond +-(2^53-1) as numbers (default, exact text) or strings (exact for "
               "PHP json_decode and JS JSON.parse)",
               BigNumbers::number),
        choice(json_columns, "--json-columns", "sink.json_columns",
               "JSON: a JSON column as a string holding its text (string, the default) or as the JSON value itself "
               "(embed; a value that is not JSON fails the run)",
               JsonColumns::string),
        choice(csv_null, "--csv-null", "sink.csv_null",
               "CSV: NULL as an empty field (empty, the default; an empty string is \"\") or as \\N, as mysqldump "
               "--tab writes it (backslashes in values are then doubled, for LOAD DATA ... ESCAPED BY '\\\\')",
               CsvNull::empty),
        text(list_key, "--list-key", "sink.list_key",
             "Redis: the priority lists' names, {queue} and {level} replaced (default: {queue}:p:{level})",
             defaults.redis_only.list_key),
        text(delayed_key, "--delayed-key", "sink.delayed_key",
             "Redis: the delayed set's name, {queue} replaced (default: {queue}:delayed)",
             defaults.redis_only.delayed_key),
        choice(delay_score, "--delay-score", "sink.delay_score",
               "Redis: delayed set scores in Unix ms or s (default: ms)", defaults.redis_only.delay_score),
        choice(delayed_members, "--delayed-members", "sink.delayed_members",
               "Redis: delayed set members tagged (unique; rowpump's promote strips the tag) or bare payloads (for "
               "movers of your own; equal payloads collapse)",
               defaults.redis_only.delayed_members),
        text(state_prefix, "--state-prefix", "sink.state_prefix",
             "Redis: prefix of the --job-id state keys (default: rowpump:job:)", JobSpec{}.state_prefix),
        text(redis_wait, "--redis-wait", "sink.redis_wait",
             "Redis: N[:timeout_ms]: after each page, WAIT until N replicas have it (default timeout 1000 ms); a "
             "page they do not acknowledge is retried with --job-id, and fails the run without one"),
        whole(stream_maxlen, "--stream-maxlen", "sink.stream_maxlen",
              "--push xadd: trim the stream to about N entries as rows go in (XADD MAXLEN ~ N; default 0, no trim)",
              {0, UINT64_MAX}, 0),
        whole(shards, "--shards", "sink.shards",
              "Redis Cluster: spread the queue over N hash slots, the queues {NAME:0} ... {NAME:N-1}; each page goes "
              "whole to one shard, and consumers (given the same --shards) read them all",
              {1, 1024}, std::nullopt),
    };
}

std::vector<OptionSpec> run_options() {
    const ThrottleSpec throttle;
    return {
        whole(partitions, "--partitions", "partitions.count",
              "Key ranges to split the table into (default: as many as --workers)", {1, 1'000'000}, std::nullopt),
        choice(partition_strategy, "--partition-strategy", "partitions.strategy", "How ranges are cut",
               PartitionStrategy::balanced),
        whole(workers, "--workers", "workers",
              "Parallel workers, each with its own connections (default: the number of cores)", {1, 256}, std::nullopt),
        real(rate, "--rate", "limits.rate", "At most this many rows per second over all workers (0: no cap)",
             rate_bounds, 0),
        whole(high_water, "--high-water", "limits.high_water",
              "Pause while the queue holds more ready tasks than this (0: never)", {0, UINT64_MAX}, 0),
        text(replica, "--replica", "throttle.replicas",
             "A replica to watch, mysql://user@host:port/db (repeatable; without a password, the source's for the "
             "same user): reading pauses while one lags by more than --max-lag"),
        real(max_lag, "--max-lag", "throttle.max_lag", "Most replica lag in seconds (default 1.5)", max_lag_bounds,
             std::chrono::duration<double>(throttle.max_lag).count()),
        text(lag_query, "--lag-query", "throttle.lag_query",
             "SQL run on each replica instead of the heartbeat; its first cell is the lag in seconds"),
        text(max_load, "--max-load", "throttle.max_load",
             "Pause while a numeric global status value is over its limit: VAR=N[,VAR=N], e.g. Threads_running=25"),
        text(critical_load, "--critical-load", "throttle.critical_load",
             "Stop (exit 3; resumable with --job-id) when a numeric global status value stays over: VAR=N[,VAR=N]"),
        text(pause_file, "--pause-file", "throttle.pause_file", "Pause while this file exists"),
        text(stop_file, "--stop-file", "throttle.stop_file",
             "Stop cleanly once this file exists (exit 3; resumable with --job-id), as pt-archiver's --sentinel"),
        text(throttle_query, "--throttle-query", "throttle.query",
             "SQL run on the source server about once a second: reading pauses while its first cell is not 0 "
             "(or it fails), as gh-ost's --throttle-query"),
        text(throttle_http, "--throttle-http", "throttle.http_check",
             "http://HOST[:PORT]/PATH asked about once a second: reading pauses while it does not answer 200 "
             "(a throttler such as freno, as gh-ost's --throttle-http)"),
        text(http, "--http", "throttle.http",
             "Serve /status, /metrics and POST /pause, /resume, /stop, /rate, /max-lag, /max-load, /page-size on "
             "HOST:PORT, with a status page at / (PORT alone: 127.0.0.1). POSTs need 'Authorization: Bearer TOKEN' when "
             "ROWPUMP_HTTP_TOKEN or ROWPUMP_HTTP_TOKEN_FILE holds a token, and are refused without one on an address "
             "other machines reach; GETs stay open (docs/throttling.md)"),
        real(progress_interval, "--progress-interval", "progress_interval",
             "Seconds between progress lines when stderr is not a terminal, at least 1 (0: none)", progress_interval_bounds,
             JobSpec{}.progress_interval_seconds),
        text(job_id, "--job-id", "job_id",
             "Exactly once: keep each range's checkpoint beside the queue (redis or mysql sink); processes given the "
             "same job id share the work. Its state lives beside the queue: rows of rowpump_jobs / "
             "rowpump_job_ranges (mysql sink) or keys rowpump:job:ID:* (redis sink, see --state-prefix)"),
        // `rowpump run --resume`: a choice of the run, not of the job file.
        flag(resume, "--resume", "",
             "Refuse to start a new job: run only if the job of the job id (--job-id, or job_id in a job file) "
             "exists. A rerun with the same job id resumes where the job stopped, with or without --resume"),
        flag(follow, "--follow", "follow",
             "Also read the rows added above the key's maximum at the start, until a pass finds none (without it "
             "the run stops there; an integer key, no --job-id)"),
        whole(lease_timeout, "--lease-timeout", "lease_timeout",
              "Seconds after which a live but stuck process loses its range", {1, 86'400},
              JobSpec{}.lease_timeout.count()),
    };
}

std::vector<OptionSpec> build_table() {
    std::vector<OptionSpec> options;
    for (auto group : {source_options(), sink_options(), run_options(), command_option_table(), queue_option_table()})
        for (auto& spec : group) options.push_back(std::move(spec));
    for (std::size_t i = 0; i < options.size(); ++i)
        if (static_cast<std::size_t>(options[i].id) != i)
            throw std::logic_error("option table out of the order of OptionId at " + options[i].cli);
    return options;
}

}  // namespace

const std::vector<OptionSpec>& all_options() {
    static const std::vector<OptionSpec> options = build_table();
    return options;
}

const OptionSpec& option(OptionId id) { return all_options().at(static_cast<std::size_t>(id)); }

const std::string& spelled(OptionId id, Spelling spelling) {
    const OptionSpec& spec = option(id);
    return spelling == Spelling::yaml && !spec.yaml.empty() ? spec.yaml : spec.cli;
}

std::vector<std::string> section_keys(const std::string& section) {
    std::vector<std::string> keys;
    const std::string prefix = section + ".";
    for (const auto& spec : all_options()) {
        if (!spec.yaml.starts_with(prefix)) continue;
        const std::string rest = spec.yaml.substr(prefix.size());
        std::string first = rest.substr(0, rest.find('.'));
        if (keys.empty() || keys.back() != first) keys.push_back(std::move(first));
    }
    return keys;
}

}  // namespace rowpump::config
