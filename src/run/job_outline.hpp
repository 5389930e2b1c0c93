#pragma once
// A job's plan as `rowpump explain` and --dry-run show it: the read plan, the ranges and the statements
// each range's first page runs, made by the run's own functions (job_plan.hpp, PageSql::page) and read
// from no row, so that what they show is what the run sends.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "paging/key_predicate.hpp"
#include "rowpump/job.hpp"

namespace rowpump {

struct PlannedQuery {
    std::string label;  // "first page", "first page of the NULL-key pass (by primary key)", ...
    SqlFragment query;
};

struct PlannedRange {
    Partition partition;
    // The statements of the range's first page, in the order the reader runs them. For id-in, phase 1
    // only: phase 2 needs the keys phase 1 returns.
    std::vector<PlannedQuery> first_page;
};

struct JobOutline {
    std::shared_ptr<const ReadPlan> plan;
    std::size_t workers = 0;
    PartitionPlan partitions;
    std::vector<PlannedRange> ranges;  // one per partition, in the same order
};

// Plans the job as run_job does: the routing inputs in the select list, and checked. Throws UsageError for
// a bad spec.
JobOutline outline_job(const JobSpec& spec);

}  // namespace rowpump
