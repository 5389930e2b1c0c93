#include "cli/backfill_command.hpp"

#include <algorithm>

#include "backend/redis/redis_wait.hpp"
#include "cli/job_runner.hpp"
#include "cli/schema_flags.hpp"
#include "config/option_checks.hpp"
#include "config/option_error.hpp"
#include "route/router.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"

namespace rowpump::cli {

namespace {

// An unset variable in --job-id "$JOB" gives "": refused, or the run would go on without a job and a second
// run would write every row again.
CLI::Validator job_id_text() {
    return CLI::Validator(
        [](const std::string& id) -> std::string {
            if (!id.empty() && id.size() <= 191) return "";
            return "a job id must be 1 to 191 characters, got " + std::to_string(id.size()) +
                   " (an unset variable in --job-id \"$JOB\" gives none); give one, or leave --job-id out";
        },
        "ID");
}

}  // namespace

CLI::App* setup_backfill(CLI::App& app, BackfillOptions& options) {
    auto* command = app.add_subcommand("backfill", "Stream a table into a queue: N key ranges, W parallel workers");
    command->footer(
        "Examples:\n"
        "  rowpump backfill --table orders --sink redis://127.0.0.1:6379/0 --queue orders\n"
        "  rowpump backfill --table orders --partitions 16 --workers 4 --sink mysql://app@127.0.0.1/jobs "
        "--queue order_tasks\n"
        "  rowpump backfill --table orders --sink redis://127.0.0.1:6379/0 --queue orders \\\n"
        "      --priority-column amount --priority high:1000,mid:100,low     (lists orders:p:high, ...)\n"
        "  rowpump backfill --table orders --sink redis://127.0.0.1:6379/0 --queue reminders --due-column remind_at\n"
        "  rowpump backfill --table orders --sink redis://127.0.0.1:6379/0 --format sidekiq --job-class Orders::SyncJob\n"
        "      (jobs that Sidekiq runs; --format celery --task NAME for Celery: docs/worker-formats.md)\n"
        "Ctrl-C stops cleanly (exit 3); the summary says where each range stopped.");
    add_source_options(*command, options.source);
    using enum OptionId;
    add_schema_options(*command, {{partitions, options.partitions}, {partition_strategy, options.partition_strategy},
                                  {workers, options.workers}, {sink, options.sink}, {overwrite, options.overwrite},
                                  {queue, options.queue}, {push, options.push}, {format, options.format},
                                  {job_class, options.job_class}, {task, options.task},
                                  {sidekiq_timestamps, options.sidekiq_timestamps},
                                  // docs/payloads-and-names.md: payload templates, big numbers, and the Redis
                                  // names consumers expect
                                  {payload_template, options.payload_template}, {big_numbers, options.big_numbers},
                                  {list_key, options.redis_names.list_key},
                                  {delayed_key, options.redis_names.delayed_key},
                                  {delay_score, options.redis_names.delay_score},
                                  {delayed_members, options.delayed_members},
                                  {state_prefix, options.state_prefix}, {redis_wait, options.redis_wait},
                                  {stream_maxlen, options.stream_maxlen}, {shards, options.shards}});
    add_encoding_flags(*command, options.encoding);
    add_worker_flags(*command, options.worker);
    add_schema_options(*command, {{priority_column, options.priority_column}, {priority, options.priority_levels},
                                  {delay, options.delay_seconds}, {due_column, options.due_column},
                                  {rate, options.rate}, {high_water, options.high_water}});
    add_throttle_flags(*command, options.throttle);
    add_schema_options(*command, {{page_time_ms, options.page_time_ms}, {max_page_size, options.max_page_size}});
    add_schema_option(*command, job_id, options.job_id)->check(job_id_text());
    add_schema_options(*command, {{resume, options.resume}, {follow, options.follow},
                                  {consistent_snapshot, options.consistent_snapshot},
                                  {lease_timeout, options.lease_timeout_seconds}, {dry_run, options.dry_run},
                                  {summary_json, options.summary_json},
                                  {progress_interval, options.progress_interval_seconds}});
    return command;
}

namespace {

const std::size_t default_max_page_size = ReadSpec{}.max_page_size;

std::size_t max_page_size(const BackfillOptions& options) {
    const std::size_t page_size = options.source.page_size;
    if (!options.max_page_size) return std::max(default_max_page_size, page_size);
    if (options.max_page_size < page_size)
        throw config::OptionError({OptionId::max_page_size, " " + std::to_string(options.max_page_size) + " is below ",
                                   OptionId::page_size, " " + std::to_string(page_size) + ": give a ",
                                   OptionId::max_page_size, " of at least " + std::to_string(page_size) +
                                                                ", or a smaller ",
                                   OptionId::page_size});
    return options.max_page_size;
}

JobSpec job_spec(const BackfillOptions& options) {
    JobSpec spec;
    spec.mysql = options.source.mysql();
    spec.read = options.source.read_spec();
    spec.read.target_page_time = std::chrono::milliseconds(options.page_time_ms);
    spec.read.max_page_size = max_page_size(options);
    spec.read.min_page_size = std::min<std::size_t>(100, options.source.page_size);
    spec.partitions = options.partitions;
    spec.partition_strategy = options.partition_strategy;
    spec.workers = options.workers;
    spec.sink.uri = options.sink;
    spec.sink.timeouts = spec.mysql;  // every connection to the sink's server waits and retries as the source's
    spec.sink.queue = options.queue;
    spec.sink.overwrite = options.overwrite;
    spec.sink.push = options.push.value_or(PushSide::right);
    spec.format = options.format;
    config::check_push_applies(spec.format, options.push.has_value());
    spec.task.job_class = options.job_class;
    spec.task.task = options.task;
    spec.task.sidekiq_timestamps = options.sidekiq_timestamps;
    apply_worker_flags(options.worker, spec.task);
    check_task_spec(spec.format, spec.task);  // here too for --dry-run, which runs no job
    spec.payload.template_text = options.payload_template;
    spec.payload.big_numbers = options.big_numbers;
    apply_encoding_flags(options.encoding, spec.payload);
    check_payload_options(spec.format, spec.payload);
    static_cast<RedisKeyNames&>(spec.sink.redis_only) = options.redis_names;
    spec.sink.redis_only.delayed_members = options.delayed_members;
    spec.sink.redis_only.stream_maxlen = options.stream_maxlen;
    spec.sink.redis_only.bullmq_prefix = options.worker.bullmq_prefix;
    spec.state_prefix = options.state_prefix;
    if (!options.redis_wait.empty()) redis::parse_redis_wait(options.redis_wait, spec.sink);
    spec.sink.redis_only.shards = options.shards;
    spec.route.priority_column = options.priority_column;
    if (!options.priority_levels.empty()) spec.route.levels = parse_priority_levels(options.priority_levels);
    spec.route.delay = std::chrono::milliseconds(static_cast<std::int64_t>(options.delay_seconds * 1000));
    spec.route.due_column = options.due_column;
    spec.rate = options.rate;
    spec.high_water = options.high_water;
    spec.throttle = throttle_spec(options.throttle);
    spec.job_id = options.job_id;
    spec.resume = options.resume;
    spec.follow = options.follow;
    spec.consistent_snapshot = options.consistent_snapshot;
    spec.lease_timeout = std::chrono::seconds(options.lease_timeout_seconds);
    spec.progress_interval_seconds = options.progress_interval_seconds;
    return spec;
}

}  // namespace

int run_backfill(const BackfillOptions& options) {
    const JobSpec spec = job_spec(options);
    if (options.dry_run) return print_plan(spec);
    return run_with_progress(spec, options.summary_json);
}

}  // namespace rowpump::cli
