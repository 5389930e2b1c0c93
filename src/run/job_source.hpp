#pragma once
// The range source of a job with a job id: ranges are leased from the job's store (so other processes can
// share the job), and every page is written together with its checkpoint. An idle worker, with nothing left
// to lease, splits the largest remainder another worker holds, in this process or another: in one atomic
// step of the store, fenced on that owner's checkpoint, whose next page is then refused and who reads on
// from its checkpoint up to the split key.
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
    // This process's workers split another worker's remainder this many times.
    std::size_t splits() const { return splits_.load(); }
    void add_split() { ++splits_; }
    // The job's ranges as the store holds them after the run, with the rows this process read in each.
    std::vector<RangeSummary> summarize(const JobState& job) const;
    // How many ranges were recorded so far, and a wait until more than `seen` are or `timeout` passes: an
    // idle worker looks at the job again as soon as a local worker ends a range (other processes' ranges
    // it can only poll for). Taking `seen` before looking at the job closes the gap a notify could fall in.
    std::size_t recorded() const;
    void wait_for_record(std::size_t seen, std::chrono::milliseconds timeout);
    // The run is ending (a stop, or a worker failed): waits return at once from now on, so an idle worker
    // sees the stop now rather than after its poll.
    void stop_waits();

private:
    mutable std::mutex mutex_;
    std::condition_variable recorded_;
    std::size_t leases_ = 0;
    bool stopping_ = false;
    std::map<std::uint32_t, std::uint64_t> rows_read_;  // by range number, over all its leases
    std::atomic<std::uint64_t> rows_written_{0};
    std::atomic<std::size_t> splits_{0};
};

// One per worker: its own ledger (sink connection) and, once it steals, its own connection for midpoints.
class JobSource final : public RangeSource {
public:
    JobSource(const WorkerContext& context, JobStore& store, std::mutex& store_mutex, LedgerReport& report);

    // A range to lease, else one split off another's remainder, else a wait until the job is done (by this
    // process or others) or the run stops.
    std::unique_ptr<RangeLease> next() override;
    std::optional<std::uint64_t> ready_count() override { return ledger_->ready_count(); }

    JobLedger& ledger() { return *ledger_; }
    // True when the source's server finds `position` before `bound` (on this worker's control connection).
    bool key_before(const KeyValue& position, const KeyValue& bound);
    LedgerReport& report() { return report_; }
    const std::string& job_id() const { return context_.spec.job_id; }

private:
    // A split of the largest remainder among `pending` (as the store had them), else nullopt.
    std::optional<StoredRange> steal(std::vector<StoredRange> pending);
    // Splits `victim` at `middle`, following its owner's checkpoint while that stays below `middle`.
    std::optional<StoredRange> split_at(StoredRange victim, const KeyValue& middle, std::uint64_t moved_rows);
    // The range another worker holds with the most rows left by the plan's estimate, if worth a split.
    std::optional<StoredRange> largest_remainder(const std::vector<StoredRange>& pending) const;
    bool job_finished();

    const WorkerContext& context_;
    JobStore& store_;
    std::mutex& store_mutex_;
    LedgerReport& report_;
    std::unique_ptr<JobLedger> ledger_;
    bool stealing_;
    std::uint64_t split_threshold_;  // the fewest rows left (by the estimate) that are worth a split
    // For midpoints and key comparisons, its connection opened when first needed: by the thief (the worker's
    // thread) or by the owner's writer thread after a split, never both at once (a worker steals only
    // between ranges).
    std::unique_ptr<KeyOrder> keys_;
    // Ranges found too small to split, with their rows written then: not looked at again until they move.
    std::map<std::uint32_t, std::uint64_t> unsplittable_;
};

}  // namespace rowpump
