#pragma once
// Runs a JobSpec from the command line, for `backfill` and `run` alike: the dry-run plan, or the run with
// the progress bar, a clean stop on SIGINT/SIGTERM, and the summary (text, and JSON when asked).
#include <string>

#include "rowpump/job.hpp"

namespace rowpump::cli {

// Prints the plan (the paging key, the ranges and the SQL of each range's first page); writes nothing.
int print_plan(const JobSpec& spec);

// Runs the job and prints its summary; returns the exit code: 0 done, 3 interrupted (resumable), 1 when
// the rows were written but the summary file could not be. `summary_json` (when not empty) is opened
// before the run: a path that cannot be written is a UsageError before anything is read or written.
int run_with_progress(const JobSpec& spec, const std::string& summary_json);

}  // namespace rowpump::cli
