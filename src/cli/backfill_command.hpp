#pragma once
// `rowpump backfill`: the main job from the command line: N ranges, W workers, one sink.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/encoding_flags.hpp"
#include "cli/source_options.hpp"
#include "cli/throttle_flags.hpp"
#include "cli/worker_flags.hpp"
#include "rowpump/job.hpp"

namespace rowpump::cli {

// The flags' values, typed as the schema reads them (config/option_schema.hpp); defaults as JobSpec's.
struct BackfillOptions {
    SourceOptions source;
    std::size_t partitions = 0;
    PartitionStrategy partition_strategy = PartitionStrategy::balanced;
    std::size_t workers = 0;
    std::string sink = "stdout";
    bool overwrite = false;  // file: sink: replace an existing file
    std::string queue;
    std::optional<PushSide> push;  // none: rpush, or the worker format's own side
    Format format = Format::json;
    std::string job_class;  // --format sidekiq
    std::string task;       // --format celery
    SidekiqTimestamps sidekiq_timestamps = SidekiqTimestamps::seconds;
    WorkerFlags worker;  // --sidekiq-retry, --celery-kwargs, ...
    std::string payload_template;  // --format template
    BigNumbers big_numbers = BigNumbers::number;
    EncodingFlags encoding;
    RedisKeyNames redis_names;  // --list-key, --delayed-key, --delay-score
    DelayedMembers delayed_members = RedisSinkOptions{}.delayed_members;
    std::string state_prefix = JobSpec{}.state_prefix;
    std::string redis_wait;  // --redis-wait N[:timeout_ms]
    std::uint64_t stream_maxlen = 0;  // --push xadd: MAXLEN ~ N
    std::size_t shards = 0;  // --shards N (0: not given)
    std::string priority_column;
    std::string priority_levels;  // "high:100,mid:10,low"
    double delay_seconds = 0;
    std::string due_column;
    double rate = 0;
    std::size_t high_water = 0;
    ThrottleFlags throttle;
    std::size_t page_time_ms = 250;
    std::size_t max_page_size = 0;  // 0: not given
    std::string job_id;
    bool resume = false;
    bool follow = false;
    bool consistent_snapshot = false;
    std::size_t lease_timeout_seconds = 60;
    bool dry_run = false;
    std::string summary_json;
    double progress_interval_seconds = JobSpec{}.progress_interval_seconds;
};

CLI::App* setup_backfill(CLI::App& app, BackfillOptions& options);
int run_backfill(const BackfillOptions& options);

}  // namespace rowpump::cli
