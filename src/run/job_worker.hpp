#pragma once
// The workers of a job with a job id: they lease ranges from the job's store (so other processes can
// share the job) and write every page together with its checkpoint.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "checkpoint/job_store.hpp"
#include "run/range_worker.hpp"

namespace rowpump {

// What this process did, range by range, for the summary.
class LedgerReport {
public:
    // A lease of `range` ended (finished, stopped or lost) after this process read `rows_read` of it.
    void record(const StoredRange& range, std::uint64_t rows_read);
    std::uint64_t rows_written() const { return rows_written_.load(); }
    void add_written(std::uint64_t rows) { rows_written_ += rows; }
    // The job's ranges as the store holds them after the run, with the rows this process read in each.
    std::vector<RangeSummary> summarize(const JobState& job) const;
    // How many ranges were recorded so far, and a wait until more than `seen` are or `timeout` passes: an
    // idle worker looks at the job again as soon as a local worker ends a range (other processes' ranges
    // it can only poll for). Taking `seen` before looking at the job closes the gap a notify could fall in.
    std::size_t recorded() const;
    void wait_for_record(std::size_t seen, std::chrono::milliseconds timeout);

private:
    mutable std::mutex mutex_;
    std::condition_variable recorded_;
    std::size_t leases_ = 0;
    std::map<std::uint32_t, std::uint64_t> rows_read_;  // by range number, over all its leases
    std::atomic<std::uint64_t> rows_written_{0};
};

// Runs until every range of the job is done (by this process or others) or a stop is requested.
void run_job_worker(const WorkerContext& context, JobStore& store, std::mutex& store_mutex, LedgerReport& report);

}  // namespace rowpump
