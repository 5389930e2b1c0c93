#include "checkpoint/job_admin.hpp"

#include <algorithm>

namespace rowpump {

std::uint64_t AdminJob::rows_written() const {
    std::uint64_t rows = 0;
    for (const AdminRange& range : ranges) rows += range.rows_written;
    return rows;
}

std::uint64_t AdminJob::estimated_rows() const {
    std::uint64_t rows = 0;
    for (const AdminRange& range : ranges) rows += range.estimated_rows;
    return rows;
}

std::size_t AdminJob::ranges_done() const {
    return static_cast<std::size_t>(std::count_if(ranges.begin(), ranges.end(), [](const AdminRange& r) { return r.done; }));
}

std::size_t AdminJob::live_leases() const {
    return static_cast<std::size_t>(
        std::count_if(ranges.begin(), ranges.end(), [](const AdminRange& r) { return r.lease_live; }));
}

std::optional<std::int64_t> AdminJob::written_at_ms() const {
    std::optional<std::int64_t> newest;
    for (const AdminRange& range : ranges)
        if (range.written_at_ms && (!newest || *range.written_at_ms > *newest)) newest = range.written_at_ms;
    return newest;
}

// define_job writes "table <name> key (...) ...": the name is what lies between.
std::string AdminJob::table() const {
    const std::string head = "table ";
    if (description.rfind(head, 0) != 0) return "";
    const auto end = description.find(" key (", head.size());
    return end == std::string::npos ? "" : description.substr(head.size(), end - head.size());
}

RemoveOutcome removal_verdict(const AdminJob& job, RemoveRule rule) {
    if (!rule.force && job.live_leases() > 0) return RemoveOutcome::leased;
    if (rule.only_finished && !rule.force && !job.finished()) return RemoveOutcome::unfinished;
    return RemoveOutcome::removed;
}

}  // namespace rowpump
