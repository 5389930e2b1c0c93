#pragma once
// A job store in memory, following the JobLedger contract (checkpoint/job_store.hpp): ranges leased to
// one ledger at a time, a page and its checkpoint written in one step fenced on the lease, the upper
// bound and the checkpoint, splits fenced the same way, and a ledger's leases freed when it closes (its
// connection dies). Faults from the plan: a write that throws, a lease that expires under its owner, a
// split by a thief of another process while the owner's page is in flight, a stop.
#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "checkpoint/job_store.hpp"
#include "fake_queue.hpp"
#include "fake_table.hpp"

namespace rowpump::test {

class FakeJobStore final : public JobStore {
public:
    FakeJobStore(const FakeTable& table, FakeQueue& queue, FaultPlan& faults, Violations& violations)
        : table_(table), queue_(queue), faults_(faults), violations_(violations) {}

    // The thief of another process splits exactly at the last key of the page being written (the key a
    // bound compared with <= instead of < would let the owner write as well), instead of at the midpoint.
    bool split_at_page_end = false;

    JobState state() override {
        const std::lock_guard lock(mutex_);
        JobState state;
        state.exists = !ranges_.empty();
        state.ranges = ranges_.size();
        for (const Range& range : ranges_) {
            state.range_states.push_back({range.stored, range.done});
            state.range_states.back().stored.owner = 0;
            if (range.done) ++state.ranges_done;
            state.rows_written += range.stored.rows_written;
            state.estimated_rows += range.stored.estimated_rows;
        }
        return state;
    }

    JobState create(const std::vector<Partition>& partitions) override {
        {
            const std::lock_guard lock(mutex_);
            if (ranges_.empty())
                for (const Partition& partition : partitions) add_range(partition.range, partition.estimated_rows, 0);
        }
        return state();
    }

    std::unique_ptr<JobLedger> open_ledger() override;

    // The ledgers' side, each call one atomic step under the store's lock.
    std::optional<StoredRange> lease(std::uint64_t owner) {
        const std::lock_guard lock(mutex_);
        for (Range& range : ranges_) {
            if (range.done || range.stored.owner != 0) continue;
            range.stored.owner = owner;
            return range.stored;
        }
        return std::nullopt;
    }

    PageWrite write(std::uint64_t owner, StoredRange& held, const std::vector<Message>& batch, const KeyValue& last_key) {
        const std::lock_guard lock(mutex_);
        Range& range = ranges_.at(held.number);
        if (range.done || range.stored.owner != owner) return PageWrite::lost;
        const std::size_t queued = queue_.size();
        if (faults_.fire(Fault::write_fails, queued)) throw QueueError("injected: a write failed", false);
        if (faults_.fire(Fault::lease_lost, queued)) {
            range.stored.owner = 0;  // expired: free for the next lease
            return PageWrite::lost;
        }
        if (faults_.due(Fault::split, queued)) split_by_another_process(held.number, queued, last_key);
        if (range.stored.range.hi != held.range.hi) {
            held.range.hi = range.stored.range.hi;
            held.last_key = range.stored.last_key;
            return PageWrite::shrunk;
        }
        if (held.last_key != range.stored.last_key)
            violations_.add("range " + std::to_string(held.number) + ": a page written from a stale checkpoint");
        check_page_fits(range, last_key, batch.size());
        if (faults_.fire(Fault::stop, queued) && faults_.on_stop) faults_.on_stop();
        queue_.push(batch);
        range.stored.last_key = last_key;
        range.stored.rows_written += batch.size();
        return PageWrite::written;
    }

    bool complete(std::uint64_t owner, const StoredRange& held) {
        const std::lock_guard lock(mutex_);
        Range& range = ranges_.at(held.number);
        if (range.done || range.stored.owner != owner) return false;
        if (table_.from(range.stored.last_key ? range.stored.last_key : range.stored.range.lo,
                        !range.stored.last_key) < table_.until(range.stored.range.hi))
            violations_.add("range " + std::to_string(held.number) + " completed with rows after its checkpoint");
        range.done = true;
        range.stored.owner = 0;
        return true;
    }

    std::vector<StoredRange> pending_ranges(std::uint64_t owner) {
        const std::lock_guard lock(mutex_);
        std::vector<StoredRange> pending;
        for (const Range& range : ranges_)
            if (!range.done && range.stored.owner != owner) pending.push_back(range.stored);
        return pending;
    }

    std::optional<StoredRange> split(std::uint64_t thief, const StoredRange& victim, const KeyValue& split,
                                     std::uint64_t moved_rows, const std::function<bool(const KeyValue&)>& before_split) {
        const std::lock_guard lock(mutex_);
        Range& range = ranges_.at(victim.number);
        if (range.done || range.stored.owner != victim.owner || range.stored.range.hi != victim.range.hi)
            return std::nullopt;
        // As MySQL does: a checkpoint that moved since it was read is asked about under the range's lock.
        if (range.stored.last_key != victim.last_key && !before_split(*range.stored.last_key)) return std::nullopt;
        // Strictly inside what is left: after the checkpoint (or the range's start), before the bound.
        const auto& after = range.stored.last_key ? range.stored.last_key : range.stored.range.lo;
        if ((after && int_key(split) <= int_key(*after)) ||
            (range.stored.range.hi && int_key(split) >= int_key(*range.stored.range.hi)))
            violations_.add("a split key outside the victim's unread remainder");
        return split_range(victim.number, split, moved_rows, thief);
    }

    // A ledger closed: its connection, and with it its leases, are gone.
    void release(std::uint64_t owner) {
        const std::lock_guard lock(mutex_);
        for (Range& range : ranges_)
            if (range.stored.owner == owner) range.stored.owner = 0;
    }

    std::uint64_t new_owner() {
        const std::lock_guard lock(mutex_);
        return ++owners_;
    }

private:
    struct Range {
        StoredRange stored;  // stored.owner: who holds the lease now, 0 nobody
        bool done = false;
    };

    void add_range(KeyRange key_range, std::uint64_t estimated, std::uint64_t owner) {
        Range range;
        range.stored.number = static_cast<std::uint32_t>(ranges_.size());
        range.stored.range = std::move(key_range);
        range.stored.estimated_rows = estimated;
        range.stored.owner = owner;
        ranges_.push_back(std::move(range));
    }

    StoredRange split_range(std::uint32_t number, const KeyValue& split, std::uint64_t moved_rows, std::uint64_t thief) {
        Range& victim = ranges_.at(number);
        const std::optional<KeyValue> old_hi = victim.stored.range.hi;
        victim.stored.range.hi = split;
        victim.stored.estimated_rows -= std::min(victim.stored.estimated_rows, moved_rows);
        add_range({split, old_hi}, moved_rows, thief);
        return ranges_.back().stored;
    }

    // A thief in another process splits the range whose page is being written, when it can, and dies
    // at once: the new range is free for any worker.
    void split_by_another_process(std::uint32_t number, std::size_t queued, const KeyValue& page_last_key) {
        const StoredRange& stored = ranges_.at(number).stored;
        const bool started = stored.last_key.has_value();
        // A thief splits only inside the unread remainder as the store holds it: a page read under a bound
        // that an earlier split lowered may end past it.
        const bool page_end_inside = (!stored.last_key || int_key(page_last_key) > int_key(*stored.last_key)) &&
                                     (!stored.range.hi || int_key(page_last_key) < int_key(*stored.range.hi));
        const auto middle = split_at_page_end
                                ? (page_end_inside ? std::optional<KeyValue>(page_last_key) : std::nullopt)
                                : table_.midpoint(started ? stored.last_key : stored.range.lo, stored.range.hi,
                                                  std::max<std::uint64_t>(stored.remaining_estimate(), 2), !started);
        if (middle && faults_.fire(Fault::split, queued))
            split_range(number, *middle, stored.remaining_estimate() / 2, 0);
    }

    // The page continues from the checkpoint and stays below the bound as stored.
    void check_page_fits(const Range& range, const KeyValue& last_key, std::size_t rows) {
        const auto& stored = range.stored;
        const auto first = table_.from(stored.last_key ? stored.last_key : stored.range.lo, !stored.last_key);
        const auto end = std::upper_bound(table_.keys().begin(), table_.keys().end(), int_key(last_key));
        const bool past_bound = stored.range.hi && int_key(last_key) >= int_key(*stored.range.hi);
        if (past_bound || end - first != static_cast<std::ptrdiff_t>(rows))
            violations_.add("range " + std::to_string(stored.number) + ": a page of " + std::to_string(rows) +
                            " rows ending at " + std::to_string(int_key(last_key)) +
                            (past_bound ? ", past the range's upper bound" : ", not the rows after its checkpoint"));
    }

    const FakeTable& table_;
    FakeQueue& queue_;
    FaultPlan& faults_;
    Violations& violations_;
    std::mutex mutex_;
    std::deque<Range> ranges_;  // a deque: a split adds a range while references to others are held
    std::uint64_t owners_ = 0;
};

class FakeLedger final : public JobLedger {
public:
    explicit FakeLedger(FakeJobStore& store) : store_(store), owner_(store.new_owner()) {}
    ~FakeLedger() override { store_.release(owner_); }
    FakeLedger(const FakeLedger&) = delete;
    FakeLedger& operator=(const FakeLedger&) = delete;

    std::optional<StoredRange> lease() override { return store_.lease(owner_); }
    PageWrite write(StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) override {
        return store_.write(owner_, range, batch, last_key);
    }
    bool complete(const StoredRange& range) override { return store_.complete(owner_, range); }
    std::optional<std::uint64_t> ready_count() override { return std::nullopt; }
    std::vector<StoredRange> pending_ranges() override { return store_.pending_ranges(owner_); }
    std::optional<StoredRange> split(const StoredRange& victim, const KeyValue& split, std::uint64_t moved_rows,
                                     const std::function<bool(const KeyValue&)>& before_split) override {
        return store_.split(owner_, victim, split, moved_rows, before_split);
    }

private:
    FakeJobStore& store_;
    std::uint64_t owner_;
};

inline std::unique_ptr<JobLedger> FakeJobStore::open_ledger() { return std::make_unique<FakeLedger>(*this); }

}  // namespace rowpump::test
