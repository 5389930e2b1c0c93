#include "run/job_worker.hpp"

#include "log.hpp"
#include "run/range_worker.hpp"

namespace rowpump {

void LedgerReport::record(const StoredRange& range, std::uint64_t rows_read) {
    std::lock_guard lock(mutex_);
    ++leases_;
    rows_read_[range.number] += rows_read;
    recorded_.notify_all();
}

std::size_t LedgerReport::recorded() const {
    std::lock_guard lock(mutex_);
    return leases_;
}

void LedgerReport::wait_for_record(std::size_t seen, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    recorded_.wait_for(lock, timeout, [&] { return leases_ != seen; });
}

std::vector<RangeSummary> LedgerReport::summarize(const JobState& job) const {
    std::lock_guard lock(mutex_);
    std::vector<RangeSummary> ranges;
    for (const StoredRangeState& state : job.range_states) {
        RangeSummary range;
        range.range = state.stored.range;
        const auto read = rows_read_.find(state.stored.number);
        range.rows_read = read == rows_read_.end() ? 0 : read->second;
        range.rows_written = state.stored.rows_written;
        range.estimated_rows = state.stored.estimated_rows;
        range.last_written = state.stored.last_key;
        range.finished = state.done;
        ranges.push_back(std::move(range));
    }
    return ranges;
}

namespace {

// How often a worker with nothing to lease looks again: other processes may die or finish.
constexpr auto idle_poll = std::chrono::milliseconds(500);

class JobWorker {
public:
    JobWorker(const WorkerContext& context, JobStore& store, std::mutex& store_mutex, LedgerReport& report)
        : context_(context), store_(store), store_mutex_(store_mutex), report_(report) {
        std::lock_guard lock(store_mutex_);
        ledger_ = store_.open_ledger();
        // The ledger writes; a plain sink of the same queue only answers "how many tasks are ready".
        if (context_.spec.high_water > 0) queue_level_ = make_sink(context_.spec.sink);
    }

    void run() {
        while (!context_.stop.load()) {
            if (auto range = ledger_->lease()) {
                read_range(*range);
                continue;
            }
            const std::size_t seen = report_.recorded();
            if (job_finished()) return;
            report_.wait_for_record(seen, idle_poll);
        }
    }

private:
    bool job_finished() {
        std::lock_guard lock(store_mutex_);
        return store_.state().finished();
    }

    void read_range(const StoredRange& range) {
        if (range.last_key)
            log().info("range {} resumes after {} ({} rows already written)", range.number, to_string(*range.last_key),
                       range.rows_written);
        PageReader reader(context_.spec.mysql, context_.plan, range.range, range.last_key);
        std::uint64_t rows_read = 0;
        PipelineHooks hooks;
        hooks.between_pages = [&] { context_.gate.between_pages(context_.stop, [&] { reader.keep_alive(); }); };
        hooks.on_read = [&](std::size_t rows) { rows_read += rows; };
        hooks.write = [&](const EncodedPage& page) {
            context_.rate.acquire(page.messages.size(), context_.stop);
            if (queue_level_) wait_below_high_water(*queue_level_, context_.spec.high_water, context_.stop);
            if (!ledger_->write(range, page.messages, page.last_key)) {
                log().warn("range {} of job {} was taken over by another worker: leaving it", range.number,
                           context_.spec.job_id);
                return false;
            }
            report_.add_written(page.messages.size());
            return true;
        };
        const StreamEnd end = stream_pages(reader, context_.encoder, hooks, context_.stop);
        // A false complete() means the lease was lost at the last moment: the summary reads the store.
        if (end == StreamEnd::exhausted) ledger_->complete(range);
        report_.record(range, rows_read);
    }

    const WorkerContext& context_;
    JobStore& store_;
    std::mutex& store_mutex_;
    LedgerReport& report_;
    std::unique_ptr<JobLedger> ledger_;
    std::unique_ptr<Sink> queue_level_;  // with --high-water only
};

}  // namespace

void run_job_worker(const WorkerContext& context, JobStore& store, std::mutex& store_mutex, LedgerReport& report) {
    JobWorker worker(context, store, store_mutex, report);
    worker.run();
}

}  // namespace rowpump
