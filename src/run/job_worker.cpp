#include "run/job_worker.hpp"

#include "log.hpp"
#include "run/range_worker.hpp"

namespace rowpump {

void LedgerReport::record(const StoredRange& range, std::uint64_t rows_read, std::uint64_t rows_written,
                          std::optional<KeyValue> last_written, bool finished) {
    std::lock_guard lock(mutex_);
    RangeSummary summary;
    summary.range = range.range;
    summary.rows_read = rows_read;
    summary.rows_written = rows_written;
    summary.last_written = last_written ? std::move(last_written) : range.last_key;
    summary.finished = finished;
    ranges_.push_back(std::move(summary));
    recorded_.notify_all();
}

std::size_t LedgerReport::recorded() const {
    std::lock_guard lock(mutex_);
    return ranges_.size();
}

void LedgerReport::wait_for_record(std::size_t seen, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    recorded_.wait_for(lock, timeout, [&] { return ranges_.size() != seen; });
}

std::vector<RangeSummary> LedgerReport::ranges() const {
    std::lock_guard lock(mutex_);
    return ranges_;
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
        std::uint64_t rows_written = 0;
        std::optional<KeyValue> last_written;
        PipelineHooks hooks;
        hooks.on_read = [&](std::size_t rows) { rows_read += rows; };
        hooks.write = [&](const EncodedPage& page) {
            context_.rate.acquire(page.messages.size());
            if (queue_level_) wait_below_high_water(*queue_level_, context_.spec.high_water, context_.stop);
            if (!ledger_->write(range, page.messages, page.last_key)) {
                log().warn("range {} of job {} was taken over by another worker: leaving it", range.number,
                           context_.spec.job_id);
                return false;
            }
            rows_written += page.messages.size();
            report_.add_written(page.messages.size());
            last_written = page.last_key;
            return true;
        };
        const StreamEnd end = stream_pages(reader, context_.encoder, hooks, context_.stop);
        const bool finished = end == StreamEnd::exhausted && ledger_->complete(range);
        report_.record(range, rows_read, rows_written, std::move(last_written), finished);
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
