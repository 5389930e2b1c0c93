#include "run/job_plan.hpp"

#include <algorithm>
#include <thread>

#include "route/router.hpp"
#include "throttle/rate_limiter.hpp"

namespace rowpump {

std::size_t worker_count(const JobSpec& spec) {
    if (spec.workers > 0) return spec.workers;
    return std::max(1u, std::thread::hardware_concurrency());
}

ReadPlan plan_job_read(const JobSpec& spec) {
    ReadSpec read = spec.read;
    if (spec.rate > 0) {
        read.max_page_size = std::min(read.max_page_size, RateLimiter(spec.rate).page_cap(read.min_page_size));
        read.page_size = std::min(read.page_size, read.max_page_size);
    }
    Router::request_inputs(spec.route, spec.task.celery.priority_column, read);
    return plan_read(spec.mysql, read);
}

PartitionPlan plan_job_partitions(const JobSpec& spec, const ReadPlan& plan, std::size_t workers) {
    return plan_partitions(spec.mysql, plan, spec.partitions ? spec.partitions : workers, spec.partition_strategy);
}

}  // namespace rowpump
