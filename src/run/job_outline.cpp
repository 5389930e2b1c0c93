#include "run/job_outline.hpp"

#include "paging/page_size.hpp"
#include "paging/page_sql.hpp"
#include "route/router.hpp"
#include "run/job_plan.hpp"

namespace rowpump {

namespace {

// The range's first page, as PageReader would run it: the NULL-key pass first when the range has one.
std::vector<PlannedQuery> first_page(const ReadPlan& plan, const PageSql& sql, const KeyRange& range) {
    const std::size_t limit = PageSizer(plan.spec).size();
    std::vector<PlannedQuery> out;
    if (has_null_key_pass(plan, range))
        out.push_back({"first page of the NULL-key pass (by primary key)",
                       sql.page(Pass::null_keys, first_page_bounds(Pass::null_keys, range), limit, 0)});
    out.push_back({plan.spec.strategy == PagingStrategy::id_in ? "first page, phase 1 (its keys)" : "first page",
                   sql.page(Pass::main, first_page_bounds(Pass::main, range), limit, 0)});
    return out;
}

}  // namespace

JobOutline outline_job(const JobSpec& spec) {
    JobOutline out;
    out.plan = std::make_shared<const ReadPlan>(plan_job_read(spec));
    [[maybe_unused]] const Router router(spec.route, spec.task.celery.priority_column, *out.plan);  // checks the routing inputs as the run does
    out.workers = worker_count(spec);
    out.partitions = plan_job_partitions(spec, *out.plan, out.workers);
    const PageSql sql(*out.plan);
    for (const auto& partition : out.partitions.partitions)
        out.ranges.push_back({partition, first_page(*out.plan, sql, partition.range)});
    return out;
}

}  // namespace rowpump
