#pragma once
// How `rowpump job` shows jobs: a table for list, the ranges for show, and the same as JSON.
#include <string>
#include <vector>

#include "checkpoint/job_admin.hpp"

namespace rowpump::cli {

// "finished", "running" (a live lease), "stopped" (ranges left, nobody on them: a run resumes it), "empty".
std::string job_state(const AdminJob& job);
// "2026-12-04T15:01:02Z"; "-" when the store kept no time.
std::string time_text(const std::optional<std::int64_t>& unix_ms);

std::string jobs_table(const std::vector<AdminJob>& jobs, const JobAdmin& admin);
std::string job_text(const AdminJob& job, const JobAdmin& admin);
std::string jobs_json(const std::vector<AdminJob>& jobs, const JobAdmin& admin);
std::string job_json(const AdminJob& job, const JobAdmin& admin);

}  // namespace rowpump::cli
