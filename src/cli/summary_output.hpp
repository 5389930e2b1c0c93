#pragma once
// The end of a run: a text summary on stderr (stdout may be the sink) and, when asked, the same as JSON.
#include <string>

#include "rowpump/job.hpp"

namespace rowpump::cli {

void print_summary(const JobSummary& summary);
// Writes the summary as JSON to `path`; throws Error when the file cannot be written.
void write_summary_json(const JobSummary& summary, const std::string& path);

}  // namespace rowpump::cli
