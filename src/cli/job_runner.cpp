#include "cli/job_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/progress_bar.hpp"
#include "cli/stop_signal.hpp"
#include "cli/summary_output.hpp"
#include "route/router.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

int print_plan(const JobSpec& spec) {
    // The plan of the statements the run will send: routing inputs are part of the select list.
    ReadSpec read = spec.read;
    Router::request_inputs(spec.route, read);
    auto plan = std::make_shared<const ReadPlan>(plan_read(spec.mysql, read));
    const std::size_t workers = spec.workers ? spec.workers : std::max(1u, std::thread::hardware_concurrency());
    const auto partitions =
        plan_partitions(spec.mysql, *plan, spec.partitions ? spec.partitions : workers, spec.partition_strategy);
    std::printf("table %s, key (", plan->table.quoted_name().c_str());
    for (std::size_t i = 0; i < plan->key.columns.size(); ++i)
        std::printf("%s%s", i ? ", " : "", plan->key.columns[i].c_str());
    std::printf("): %s\n", plan->key.reason.c_str());
    std::printf("%zu ranges, ~%llu rows, %zu workers, sink %s%s%s (dry run: nothing written)\n",
                partitions.partitions.size(), static_cast<unsigned long long>(partitions.estimated_rows), workers,
                redact_url(spec.sink.uri).c_str(), spec.sink.queue.empty() ? "" : " queue ", spec.sink.queue.c_str());
    if (!spec.job_id.empty())
        std::printf("job id %s%s\n", spec.job_id.c_str(), spec.resume ? " (resume)" : "");
    for (std::size_t i = 0; i < partitions.partitions.size(); ++i) {
        const auto& partition = partitions.partitions[i];
        PageReader reader(spec.mysql, plan, partition.range);
        std::printf("range %zu [%s, %s) ~%llu rows: %s\n", i,
                    partition.range.lo ? to_string(*partition.range.lo).c_str() : "start",
                    partition.range.hi ? to_string(*partition.range.hi).c_str() : "end",
                    static_cast<unsigned long long>(partition.estimated_rows), reader.next_page_sql().c_str());
    }
    return 0;
}

int run_with_progress(const JobSpec& spec, const std::string& summary_json) {
    ProgressBar progress;
    JobControl control;
    control.stop = &install_stop_signals(backfill_stop_message, backfill_second_stop_message);
    control.on_progress = [&progress](const JobProgress& update) { progress.update(update); };
    const JobSummary summary = run_job(spec, control);
    progress.finish();
    print_summary(summary);
    if (!summary_json.empty()) write_summary_json(summary, summary_json);
    return static_cast<int>(summary.interrupted ? ExitCode::interrupted : ExitCode::done);
}

}  // namespace rowpump::cli
