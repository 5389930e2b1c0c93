#pragma once
// Every option of a job, described once: its name on the command line and its path in a job file, its
// kind, bounds, default and help. The command line (cli/schema_flags), the job file (job/option_fields),
// `--set path=value` and the errors (config/option_error) all read this table, so that one option has
// one meaning and one text wherever it is given.
#include <cstdint>
#include <string>
#include <vector>

#include "bounded_number.hpp"

namespace rowpump::config {

enum class OptionId {
    // source
    mysql, table, key, columns, where, strategy, null_keys, page_size, page_time_ms, max_page_size, set_vars,
    consistent_snapshot, read_timeout, write_timeout, retry_budget, page_timeout,
    // sink, in the order of the job file's keys
    sink, queue, format, push, priority_column, priority, delay, due_column, overwrite, job_class, task,
    sidekiq_timestamps, sidekiq_retry, sidekiq_dead, sidekiq_field, sidekiq_tags, celery_expires, celery_kwargs,
    routing_key, celery_priority, celery_priority_column, job_name, bullmq_job_id, bullmq_prefix, payload_template, big_numbers, json_columns, csv_null, list_key, delayed_key, delay_score,
    delayed_members, state_prefix, redis_wait, stream_maxlen, shards,
    // partitions and workers
    partitions, partition_strategy, workers,
    // limits and throttle
    rate, high_water, replica, max_lag, lag_query, max_load, critical_load, pause_file, stop_file, throttle_query,
    throttle_http, http, progress_interval,
    // the job
    job_id, resume, follow, lease_timeout,
    // the commands' own options, not of a job file (config/command_options.cpp, config/queue_options.cpp)
    dry_run, summary_json, overrides,  // backfill and run; --set: run and explain
    read_format, read_limit,           // rowpump read
    read_first, read_after, read_last, read_before, read_sort, read_filter, read_jump, read_page_info,  // read's pages
    read_approximate,
    plan_partitions, plan_strategy, plan_json,  // rowpump partition
    // rowpump queue: every subcommand names its queue alike; then consume, reap, stats, purge, requeue-dead
    queue_source, queue_name, stream_group, priority_lists, return_to,
    exec, pipe, exec_batch, inflight, task_timeout, concurrency, batch, claim_mode, max_attempts, backoff, backoff_cap, max_crashes, claim_timeout,
    heartbeat_timeout, reap_interval, poll, consumer, metrics_http, log_interval, until_empty,
    stats_json, stats_format, exact, stats_heartbeat_timeout, older_than, purge_batch, requeue_limit,
};

enum class ValueKind {
    text,    // one string
    names,   // a list of names (comma-separated on the command line, a list or one name in a job file)
    whole,   // a whole number within `whole`
    real,    // a number within `real`
    choice,  // one of `choices` (config/choices.hpp holds the enum each name stands for)
    flag,    // on or off (a flag on the command line, true | false in a job file)
};

struct WholeBounds {
    std::uint64_t min = 0;
    std::uint64_t max = UINT64_MAX;
};

struct OptionSpec {
    OptionId id{};
    ValueKind kind{};
    std::string cli;   // "--delay-score"
    std::string yaml;  // "sink.delay_score"; empty: the option has no place in a job file (only_cli)
    std::string help;
    std::string default_text;  // as a user writes it; empty: none (or "not given")
    std::vector<std::string> choices;  // kind choice
    WholeBounds whole{};               // kind whole
    NumberBounds real{};               // kind real
    std::string env;    // the environment variable that gives it when the flag is not (--source)
    // Empty: an option of a job (backfill's flag, a job file's field, or one of run's that applies to the
    // job). Else the command whose own flag it is ("read", "queue consume"): such an option has no place
    // in a job file, and its flag may mean something else in another command (read's --format).
    std::string scope;
};

// The option's description; every OptionId has one.
const OptionSpec& option(OptionId id);
// Every option, in the order of OptionId.
const std::vector<OptionSpec>& all_options();

// How a front end spells an option: as a command-line flag, or as its path in a job file (an option
// without one, such as --resume, keeps its flag).
enum class Spelling { cli, yaml };
const std::string& spelled(OptionId id, Spelling spelling);

// The keys of one section of a job file ("sink": uri, queue, format, ...), in the table's order; the
// first level under the section for nested options (sink.priority.column gives "priority").
std::vector<std::string> section_keys(const std::string& section);

}  // namespace rowpump::config
