#include "run/job_source.hpp"

#include <algorithm>
#include <thread>

#include "checkpoint/key_codec.hpp"
#include "log.hpp"

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
    recorded_.wait_for(lock, timeout, [&] { return leases_ != seen || stopping_; });
}

void LedgerReport::stop_waits() {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    recorded_.notify_all();
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

// How often a worker with nothing to lease or split looks again: other processes may die, finish or read
// on into a remainder worth splitting.
constexpr auto idle_poll = std::chrono::milliseconds(500);
// How long a worker waits to lease again when another worker is leasing the range it saw free, or to
// split again when the owner of the remainder it tried to split kept moving on.
constexpr auto lease_race_pause = std::chrono::milliseconds(20);
// Splitting a remainder smaller than this costs more than it saves.
constexpr std::uint64_t min_rows_to_split = 2000;
// The owner's pages in flight (up to three) that reach past a split key are refused and read again: a
// remainder of fewer pages than this is not split.
constexpr std::uint64_t min_pages_to_split = 4;
// A split fails when its victim wrote a page after it was read; a fresh look tries again, this often.
constexpr int split_attempts = 4;

std::uint64_t split_threshold(const ReadSpec& spec) {
    const std::size_t page_rows = spec.target_page_time.count() > 0 ? spec.max_page_size : spec.page_size;
    return std::max<std::uint64_t>(min_rows_to_split, min_pages_to_split * page_rows);
}

class JobLease final : public RangeLease {
public:
    JobLease(JobSource& source, StoredRange range) : source_(source), range_(std::move(range)) {
        if (range_.last_key)
            log().info("range {} resumes after {} ({} rows already written)", range_.number,
                       to_string(*range_.last_key), range_.rows_written);
    }

    // Read by the worker only between two streams of pages: no writer runs then.
    const KeyRange& range() const override { return range_.range; }
    const std::optional<KeyValue>& resume_after() const override { return range_.last_key; }

    // The reader learns a split's new upper bound here, at its next page, and stops there.
    void between_pages(RangeReader& reader) override {
        std::lock_guard lock(mutex_);
        if (new_bound_) reader.set_upper_bound(std::move(*new_bound_));
        new_bound_.reset();
    }
    void on_read(std::size_t rows) override { rows_read_ += rows; }

    // On the writer thread.
    PageWrite write(const EncodedPage& page) override {
        PageWrite written;
        for (;;) {
            // Once the range was split, a page may have been read under an older, higher bound (the reader
            // takes the new one only at its next page, and pages are in flight): it is written only when
            // the server finds its last key below the bound; one that reaches past it is refused, and the
            // range is read again from its checkpoint.
            if (split_ && range_.range.hi && !source_.key_before(page.last_key, *range_.range.hi))
                return PageWrite::shrunk;
            written = source_.ledger().write(range_, page.messages, page.last_key);
            if (written != PageWrite::shrunk) break;
            // Another worker split the range since its bound was read: `range_` holds the new bound.
            split_ = true;
            std::lock_guard lock(mutex_);
            new_bound_ = range_.range.hi;
        }
        if (written == PageWrite::written) {
            // The checkpoint the store now holds: a later refusal (above) reads on from here, and a stale
            // one would read the pages written since then a second time.
            range_.last_key = page.last_key;
            range_.rows_written += page.messages.size();
            source_.report().add_written(page.messages.size());
        }
        if (written == PageWrite::lost)
            log().warn("range {} of job {} was taken over by another worker: leaving it", range_.number,
                       source_.job_id());
        return written;
    }

    void finish(bool exhausted) override {
        // A false complete() means the lease was lost at the last moment: the summary reads the store.
        if (exhausted) source_.ledger().complete(range_);
        source_.report().record(range_, rows_read_);
    }

private:
    JobSource& source_;
    StoredRange range_;  // its upper bound and checkpoint as the store holds them (a split lowers the bound)
    std::uint64_t rows_read_ = 0;
    bool split_ = false;  // the writer's: the range's bound has been lowered since it was leased
    std::mutex mutex_;
    std::optional<std::optional<KeyValue>> new_bound_;  // for the reader, once a split lowered the bound
};

}  // namespace

JobSource::JobSource(const WorkerContext& context, JobStore& store, std::mutex& store_mutex, LedgerReport& report)
    : context_(context),
      store_(store),
      store_mutex_(store_mutex),
      report_(report),
      // OFFSET pages count from where a reader started, which a split range's owner cannot keep.
      stealing_(context.plan->spec.strategy != PagingStrategy::offset),
      split_threshold_(split_threshold(context.plan->spec)),
      keys_(context.connections.keys()) {
    std::lock_guard lock(store_mutex_);
    ledger_ = store_.open_ledger();
}

std::unique_ptr<RangeLease> JobSource::next() {
    while (!context_.stop.load()) {
        if (auto range = ledger_->lease()) return std::make_unique<JobLease>(*this, std::move(*range));
        const auto pending = ledger_->pending_ranges();
        // A range nobody holds that the lease did not get is being leased by another worker right now
        // (MySQL's lease skips a range another lease has locked): look again before splitting.
        if (std::any_of(pending.begin(), pending.end(), [](const StoredRange& range) { return range.owner == 0; })) {
            std::this_thread::sleep_for(lease_race_pause);
            continue;
        }
        if (auto range = steal(pending)) return std::make_unique<JobLease>(*this, std::move(*range));
        const std::size_t seen = report_.recorded();
        if (job_finished()) return nullptr;
        // A remainder worth splitting whose owner kept moving on: try again soon, not after a whole poll.
        const bool contended = stealing_ && largest_remainder(ledger_->pending_ranges()).has_value();
        report_.wait_for_record(seen, contended ? lease_race_pause : idle_poll);
    }
    return nullptr;
}

bool JobSource::job_finished() {
    std::lock_guard lock(store_mutex_);
    return store_.state().finished();
}

std::optional<StoredRange> JobSource::largest_remainder(const std::vector<StoredRange>& pending) const {
    const StoredRange* largest = nullptr;
    for (const StoredRange& range : pending) {
        if (range.owner == 0 || range.remaining_estimate() < split_threshold_) continue;
        // The first range reads the NULL-key rows first, in a pass paged by another key: not split.
        if (!range.range.lo && context_.plan->null_key_rows > 0) continue;
        const auto refused = unsplittable_.find(range.number);
        if (refused != unsplittable_.end() && refused->second == range.rows_written) continue;
        if (!largest || range.remaining_estimate() > largest->remaining_estimate()) largest = &range;
    }
    if (!largest) return std::nullopt;
    return *largest;
}

bool JobSource::key_before(const KeyValue& position, const KeyValue& bound) { return keys_->before(position, bound); }

std::optional<StoredRange> JobSource::steal(std::vector<StoredRange> pending) {
    if (!stealing_) return std::nullopt;
    for (int attempt = 0; attempt < split_attempts && !context_.stop.load(); ++attempt) {
        if (attempt > 0) pending = ledger_->pending_ranges();
        auto victim = largest_remainder(pending);
        if (!victim) return std::nullopt;
        const std::uint64_t remaining = victim->remaining_estimate();
        // The owner's checkpoint is where its rows in the queue end; before its first page, its range's
        // own (inclusive) start.
        const bool started = victim->last_key.has_value();
        const auto middle =
            keys_->midpoint(started ? victim->last_key : victim->range.lo, victim->range.hi, remaining, !started);
        if (!middle) {
            unsplittable_[victim->number] = victim->rows_written;
            continue;
        }
        if (auto taken = split_at(*victim, *middle, remaining / 2)) return taken;
    }
    return std::nullopt;
}

std::optional<StoredRange> JobSource::split_at(StoredRange victim, const KeyValue& middle, std::uint64_t moved_rows) {
    // The owner writes on while the midpoint is found, and a split is fenced on the checkpoint it read:
    // each time the fence fails, the owner's newer checkpoint is read, and the same split key still holds
    // while the server finds that checkpoint before it. The next try is a few milliseconds after the read.
    for (int look = 0; look < split_attempts; ++look) {
        const auto before_split = [&](const KeyValue& checkpoint) { return key_before(checkpoint, middle); };
        if (auto taken = ledger_->split(victim, middle, moved_rows, before_split)) {
            report_.add_split();
            log().debug("range {} of job {} split at {}: this worker reads the upper part as range {}", victim.number,
                        job_id(), to_string(middle), taken->number);
            return taken;
        }
        const auto pending = ledger_->pending_ranges();
        const auto now = std::find_if(pending.begin(), pending.end(),
                                      [&](const StoredRange& range) { return range.number == victim.number; });
        // Finished, taken over, or split by another thief: look for a victim again.
        if (now == pending.end() || now->owner != victim.owner ||
            encode_key(now->range.hi) != encode_key(victim.range.hi))
            return std::nullopt;
        if (now->last_key && !key_before(*now->last_key, middle)) return std::nullopt;
        victim = *now;
    }
    return std::nullopt;
}

}  // namespace rowpump
