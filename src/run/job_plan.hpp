#pragma once
// A job's plan, made one way for the run, `explain` and --dry-run: what they show is what the run does.
#include <cstddef>

#include "rowpump/job.hpp"

namespace rowpump {

// --workers, or one per core.
std::size_t worker_count(const JobSpec& spec);

// The table, key, columns and page sizes the run reads with: pages capped by --rate, the routing inputs
// in the select list. Throws UsageError for a bad spec.
ReadPlan plan_job_read(const JobSpec& spec);

// The job's ranges: --partitions of them, or one per worker.
PartitionPlan plan_job_partitions(const JobSpec& spec, const ReadPlan& plan, std::size_t workers);

}  // namespace rowpump
