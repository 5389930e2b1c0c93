#include "cli/worker_flags.hpp"

#include "cli/schema_flags.hpp"
#include "encode/worker_options.hpp"

namespace rowpump::cli {

void add_worker_flags(CLI::App& command, WorkerFlags& flags) {
    using enum OptionId;
    add_schema_options(command, {{sidekiq_retry, flags.sidekiq_retry}, {sidekiq_dead, flags.sidekiq_dead},
                                 {sidekiq_field, flags.sidekiq_fields}, {sidekiq_tags, flags.sidekiq_tags},
                                 {celery_expires, flags.celery_expires}, {celery_kwargs, flags.celery_kwargs},
                                 {routing_key, flags.routing_key},
                                 {celery_priority, flags.celery_priority},
                                 {celery_priority_column, flags.celery_priority_column}, {job_name, flags.job_name},
                                 {bullmq_job_id, flags.bullmq_job_id}, {bullmq_prefix, flags.bullmq_prefix}});
}

void apply_worker_flags(const WorkerFlags& flags, TaskSpec& task) {
    read_sidekiq_retry(flags.sidekiq_retry, task.sidekiq);
    read_sidekiq_dead(flags.sidekiq_dead, task.sidekiq);
    read_sidekiq_fields(flags.sidekiq_fields, task.sidekiq);
    task.sidekiq.tags = flags.sidekiq_tags;
    task.celery.expires_seconds = flags.celery_expires;
    task.celery.kwargs = flags.celery_kwargs;
    task.celery.routing_key = flags.routing_key;
    read_celery_priority(flags.celery_priority, task.celery);
    task.celery.priority_column = flags.celery_priority_column;
    task.bullmq.job_name = flags.job_name;
    task.bullmq.job_id = flags.bullmq_job_id;
}

}  // namespace rowpump::cli
