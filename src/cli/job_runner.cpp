#include "cli/job_runner.hpp"

#include <cstdio>
#include <memory>
#include <optional>

#include "cli/progress_bar.hpp"
#include "cli/stop_signal.hpp"
#include "cli/summary_output.hpp"
#include "log.hpp"
#include "route/router.hpp"
#include "run/job_plan.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

int print_plan(const JobSpec& spec) {
    // The plan of the statements the run will send: routing inputs are part of the select list.
    auto plan = std::make_shared<const ReadPlan>(plan_job_read(spec));
    [[maybe_unused]] const Router router(spec.route, *plan);  // checks the routing inputs as a run would
    const std::size_t workers = worker_count(spec);
    const auto partitions = plan_job_partitions(spec, *plan, workers);
    std::printf("table %s, key (", plan->table.quoted_name().c_str());
    for (std::size_t i = 0; i < plan->key.columns.size(); ++i)
        std::printf("%s%s", i ? ", " : "", plan->key.columns[i].c_str());
    std::printf("): %s\n", plan->key.reason.c_str());
    std::printf("%zu ranges, ~%llu rows, %zu workers, sink %s%s%s (dry run: nothing written)\n",
                partitions.partitions.size(), static_cast<unsigned long long>(partitions.estimated_rows), workers,
                redact_url(spec.sink.uri).c_str(), spec.sink.queue.empty() ? "" : " queue ", spec.sink.queue.c_str());
    std::printf("%s\n", describe_planning(partitions).c_str());
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
    std::optional<SummaryFile> summary_file;
    if (!summary_json.empty()) summary_file.emplace(summary_json);
    ProgressBar progress;
    JobControl control;
    control.stop = &install_stop_signals(backfill_stop_message, backfill_second_stop_message);
    control.on_progress = [&progress](const JobProgress& update) { progress.update(update); };
    const JobSummary summary = run_job(spec, control);
    progress.finish();
    print_summary(summary);
    const ExitCode outcome = summary.interrupted ? ExitCode::interrupted : ExitCode::done;
    if (!summary_file) return static_cast<int>(outcome);
    try {
        summary_file->write(summary);
    } catch (const Error& error) {
        // The rows are in the sink by now: say so, so that nobody reruns the job just for its summary.
        const auto written = static_cast<unsigned long long>(summary.rows_written);
        if (summary.interrupted) {
            log().error("{}; the run was interrupted after writing {} rows, as the summary above says", error.what(),
                        written);
            return static_cast<int>(ExitCode::interrupted);
        }
        log().error("{}; the run itself finished and wrote {} rows, as the summary above says: do not run it again "
                    "for the file",
                    error.what(), written);
        return static_cast<int>(ExitCode::failure);
    }
    return static_cast<int>(outcome);
}

}  // namespace rowpump::cli
