#include "cli/job_runner.hpp"

#include <cstdio>
#include <memory>
#include <optional>

#include "cli/plan_lines.hpp"
#include "cli/progress_bar.hpp"
#include "cli/stop_signal.hpp"
#include "cli/summary_output.hpp"
#include "log.hpp"
#include "run/job_outline.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

int print_plan(const JobSpec& spec) {
    const JobOutline outline = outline_job(spec);
    std::printf("%s\n", describe_key(*outline.plan).c_str());
    std::printf("%zu ranges, ~%llu rows, %zu workers, sink %s%s%s (dry run: nothing written)\n",
                outline.ranges.size(), static_cast<unsigned long long>(outline.partitions.estimated_rows),
                outline.workers, redact_url(spec.sink.uri).c_str(), spec.sink.queue.empty() ? "" : " queue ",
                spec.sink.queue.c_str());
    std::printf("%s\n", describe_planning(outline.partitions).c_str());
    if (!spec.job_id.empty())
        std::printf("job id %s%s\n", spec.job_id.c_str(), spec.resume ? " (resume)" : "");
    // The statement each range's reader sends first.
    for (std::size_t i = 0; i < outline.ranges.size(); ++i)
        std::printf("%s: %s\n", describe_range(i, outline.ranges[i].partition).c_str(),
                    outline.ranges[i].first_page.front().query.sql.c_str());
    return 0;
}

int run_with_progress(const JobSpec& spec, const std::string& summary_json) {
    std::optional<SummaryFile> summary_file;
    if (!summary_json.empty()) summary_file.emplace(summary_json);
    ProgressBar progress(spec.progress_interval_seconds);
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
