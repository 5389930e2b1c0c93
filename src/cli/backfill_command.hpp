#pragma once
// `rowpump backfill`: the main job from the command line: N ranges, W workers, one sink.
#include <CLI/CLI.hpp>

#include "cli/encoding_flags.hpp"
#include "cli/source_options.hpp"
#include "cli/throttle_flags.hpp"

namespace rowpump::cli {

struct BackfillOptions {
    SourceOptions source;
    std::size_t partitions = 0;
    std::string partition_strategy = "balanced";
    std::size_t workers = 0;
    std::string sink = "stdout";
    bool overwrite = false;  // file: sink: replace an existing file
    std::string queue;
    std::string push;  // empty: rpush, or the worker format's own side
    std::string format = "json";
    std::string job_class;  // --format sidekiq
    std::string task;       // --format celery
    std::string sidekiq_timestamps = "seconds";
    std::string payload_template;  // --format template
    std::string big_numbers = "number";
    EncodingFlags encoding;
    std::string list_key = "{queue}:p:{level}";
    std::string delayed_key = "{queue}:delayed";
    std::string delay_score = "ms";
    std::string delayed_members = "tagged";
    std::string state_prefix = "rowpump:job:";
    std::string priority_column;
    std::string priority_levels;  // "high:100,mid:10,low"
    double delay_seconds = 0;
    std::string due_column;
    double rate = 0;
    std::uint64_t high_water = 0;
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
};

CLI::App* setup_backfill(CLI::App& app, BackfillOptions& options);
int run_backfill(const BackfillOptions& options);

}  // namespace rowpump::cli
