#include "cli/backfill_command.hpp"

#include <algorithm>

#include "cli/job_runner.hpp"
#include "cli/number_flags.hpp"
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

// docs/payloads-and-names.md: payload templates, big numbers, and the Redis names consumers expect.
void add_payload_and_name_options(CLI::App& command, BackfillOptions& options) {
    command.add_option("--template", options.payload_template,
                       "--format template: {column} raw value, {column:json}, {row} (the row's JSON), {{ }} braces");
    command.add_option("--big-numbers", options.big_numbers,
                       "JSON: DECIMAL and integers beyond +-(2^53-1) as numbers (default, exact text) or strings "
                       "(exact for PHP json_decode and JS JSON.parse)")
        ->check(CLI::IsMember({"number", "string"}));
    command.add_option("--list-key", options.list_key,
                       "Redis: the priority lists' names, {queue} and {level} replaced (default: {queue}:p:{level})");
    command.add_option("--delayed-key", options.delayed_key,
                       "Redis: the delayed set's name, {queue} replaced (default: {queue}:delayed)");
    command.add_option("--delay-score", options.delay_score, "Redis: delayed set scores in Unix ms or s (default: ms)")
        ->check(CLI::IsMember({"ms", "s"}));
    command.add_option("--delayed-members", options.delayed_members,
                       "Redis: delayed set members tagged (unique; rowpump's promote strips the tag) or bare "
                       "payloads (for movers of your own; equal payloads collapse)")
        ->check(CLI::IsMember({"tagged", "bare"}));
    command.add_option("--state-prefix", options.state_prefix,
                       "Redis: prefix of the --job-id state keys (default: rowpump:job:)");
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
    command->add_option("--partitions", options.partitions,
                        "Key ranges to split the table into (default: as many as --workers)")
        ->check(whole_number(1, 1'000'000));
    command->add_option("--partition-strategy", options.partition_strategy, "How ranges are cut")
        ->check(CLI::IsMember({"minmax", "balanced"}));
    command->add_option("--workers", options.workers, "Parallel workers, each with its own connections "
                                                      "(default: the number of cores)")
        ->check(whole_number(1, 256));
    command->add_option("--sink", options.sink, "stdout | file:PATH | redis://host:port/db | mysql://user@host:port/db");
    command->add_flag("--overwrite", options.overwrite, "file:PATH: replace the file when it exists (default: refuse)");
    command->add_option("--queue", options.queue, "Redis list (key prefix) or MySQL queue table");
    command->add_option("--push", options.push, "Redis push side (default: rpush; not with sidekiq or celery)")
        ->check(CLI::IsMember({"rpush", "lpush"}));
    command->add_option("--format", options.format,
                        "Payload format: json, csv, template (--template), or jobs for existing workers: sidekiq, "
                        "celery (docs/worker-formats.md)")
        ->check(CLI::IsMember({"json", "csv", "template", "sidekiq", "celery"}));
    command->add_option("--job-class", options.job_class,
                        "--format sidekiq: the job class its workers run (a Ruby constant path, e.g. Billing::InvoiceJob)");
    command->add_option("--task", options.task, "--format celery: the registered name of the task its workers run");
    command->add_option("--sidekiq-timestamps", options.sidekiq_timestamps,
                        "--format sidekiq: created_at/enqueued_at as float seconds (Sidekiq 6, 7) or integer ms (Sidekiq 8)")
        ->check(CLI::IsMember({"seconds", "ms"}));
    add_payload_and_name_options(*command, options);
    add_encoding_flags(*command, options.encoding);
    command->add_option("--priority-column", options.priority_column, "Numeric column that routes rows to lists");
    command->add_option("--priority", options.priority_levels,
                        "Levels, highest first, as name:min,...,name (rows >= min go there; the last takes the rest)");
    command->add_option("--delay", options.delay_seconds, "Make every row a delayed task due in this many seconds")
        ->check(real_number(0, max_flag_seconds));
    command->add_option("--due-column", options.due_column, "DATETIME column with each row's due time (delayed set)");
    command->add_option("--rate", options.rate, "At most this many rows per second over all workers (0: no cap)")
        ->check(real_number(rate_bounds));
    command->add_option("--high-water", options.high_water,
                        "Pause while the queue holds more ready tasks than this (0: never)")
        ->check(whole_number(0));
    add_throttle_flags(*command, options.throttle);
    command->add_option("--page-time-ms", options.page_time_ms,
                        "Adapt page size toward this time per page (0: keep --page-size fixed)")
        ->check(whole_number(0, 3'600'000));
    command->add_option("--max-page-size", options.max_page_size,
                        "Largest adaptive page, at least --page-size (default: " +
                            std::to_string(ReadSpec{}.max_page_size) + ", or --page-size when larger)")
        ->check(whole_number(1, 1'000'000));
    command->add_option("--job-id", options.job_id,
                        "Exactly once: keep each range's checkpoint beside the queue (redis or mysql sink); "
                        "processes given the same job id share the work. Its state lives beside the queue: "
                        "rows of rowpump_jobs / rowpump_job_ranges (mysql sink) or keys rowpump:job:ID:* (redis "
                        "sink, see --state-prefix)")
        ->check(job_id_text());
    command->add_flag("--resume", options.resume,
                      "Refuse to start a new job: run only if the job given by --job-id exists. A rerun with the same "
                      "--job-id resumes where the job stopped, with or without --resume");
    command->add_flag("--follow", options.follow,
                      "Also read the rows added above the key's maximum at the start, until a pass finds none "
                      "(without it the run stops there; an integer key, no --job-id)");
    command->add_flag("--consistent-snapshot", options.consistent_snapshot,
                      "Every worker reads one snapshot of the table, started together under a brief LOCK TABLES "
                      "... READ (needs the LOCK TABLES privilege; writes to the table wait meanwhile). A lost "
                      "reader connection fails the run. Not with --job-id or --follow");
    command->add_option("--lease-timeout", options.lease_timeout_seconds,
                        "Seconds after which a live but stuck process loses its range")
        ->check(whole_number(1, 86'400));
    command->add_flag("--dry-run", options.dry_run, "Print the plan (ranges and their first SQL); write nothing");
    command->add_option("--summary-json", options.summary_json,
                        "Also write the summary as JSON to this file (checked before the run starts; if it cannot be "
                        "written at the end, the run exits 1 and says that the rows were written)");
    return command;
}

namespace {

const std::size_t default_max_page_size = ReadSpec{}.max_page_size;

std::size_t max_page_size(const BackfillOptions& options) {
    const std::size_t page_size = options.source.page_size;
    if (!options.max_page_size) return std::max(default_max_page_size, page_size);
    if (options.max_page_size < page_size)
        throw UsageError("--max-page-size " + std::to_string(options.max_page_size) + " is below --page-size " +
                         std::to_string(page_size) + ": give a --max-page-size of at least " +
                         std::to_string(page_size) + ", or a smaller --page-size");
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
    spec.partition_strategy = parse_partition_strategy(options.partition_strategy);
    spec.workers = options.workers;
    spec.sink.uri = options.sink;
    spec.sink.timeouts = spec.mysql;  // every connection to the sink's server waits and retries as the source's
    spec.sink.queue = options.queue;
    spec.sink.overwrite = options.overwrite;
    spec.sink.push = options.push == "lpush" ? PushSide::left : PushSide::right;
    spec.format = parse_format(options.format);
    if (!options.push.empty() && queue_layout(spec.format) != QueueLayout::rowpump)
        throw UsageError("--push does not apply to --format " + options.format +
                         ": its client LPUSHes and its workers BRPOP, so rowpump does the same; remove --push");
    spec.task.job_class = options.job_class;
    spec.task.task = options.task;
    spec.task.sidekiq_timestamps =
        options.sidekiq_timestamps == "ms" ? SidekiqTimestamps::milliseconds : SidekiqTimestamps::seconds;
    check_task_spec(spec.format, spec.task);  // here too for --dry-run, which runs no job
    spec.payload.template_text = options.payload_template;
    spec.payload.big_numbers = parse_big_numbers(options.big_numbers);
    apply_encoding_flags(options.encoding, spec.payload);
    check_payload_options(spec.format, spec.payload);
    spec.sink.list_key = options.list_key;
    spec.sink.delayed_key = options.delayed_key;
    spec.sink.delay_score = options.delay_score == "s" ? DelayScore::seconds : DelayScore::milliseconds;
    spec.sink.delayed_members = options.delayed_members == "bare" ? DelayedMembers::bare : DelayedMembers::tagged;
    spec.state_prefix = options.state_prefix;
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
    return spec;
}

}  // namespace

int run_backfill(const BackfillOptions& options) {
    const JobSpec spec = job_spec(options);
    if (options.dry_run) return print_plan(spec);
    return run_with_progress(spec, options.summary_json);
}

}  // namespace rowpump::cli
