#pragma once
// The worker options' flags (--sidekiq-retry, --celery-kwargs, ...; docs/worker-formats.md), read as text
// by the schema and typed into TaskSpec by encode/worker_options.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::cli {

struct WorkerFlags {
    std::string sidekiq_retry = "true";
    std::string sidekiq_dead = "true";
    std::vector<std::string> sidekiq_fields;  // K=V, repeatable
    std::vector<std::string> sidekiq_tags;
    double celery_expires = 0;
    std::vector<std::string> celery_kwargs;
    std::string routing_key;
    std::string celery_priority;  // "" (none) or 0..9
    std::string celery_priority_column;
    std::string job_name;       // --format bullmq
    std::string bullmq_job_id;  // a brace template over the row
    std::string bullmq_prefix = RedisSinkOptions{}.bullmq_prefix;  // a sink option: backfill_command sets it
};

void add_worker_flags(CLI::App& command, WorkerFlags& flags);
// Sets the task's worker options from the flags; throws config::OptionError for a value no worker reads.
void apply_worker_flags(const WorkerFlags& flags, TaskSpec& task);

}  // namespace rowpump::cli
