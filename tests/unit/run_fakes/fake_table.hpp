#pragma once
// An in-memory table of integer keys, and what run/ reads it through: a page reader per range (bounds,
// resume_after and a lowered upper bound honoured as PageReader honours them) and the key order work
// stealing asks for split keys. Every contract a fake can see broken is noted in Violations, which a test
// expects empty.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "run/key_order.hpp"
#include "run/range_reader.hpp"

namespace rowpump::test {

// What the fakes saw go wrong: calls outside a contract (thread-safe).
class Violations {
public:
    void add(std::string what) {
        const std::lock_guard lock(mutex_);
        seen_.push_back(std::move(what));
    }
    std::vector<std::string> seen() const {
        const std::lock_guard lock(mutex_);
        return seen_;
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> seen_;
};

inline std::int64_t int_key(const KeyValue& key) { return std::get<std::int64_t>(key.at(0)); }
inline KeyValue key_of(std::int64_t value) { return KeyValue{value}; }

// The keys, sorted and unique; never changed once built, so readers share it without locks.
class FakeTable {
public:
    explicit FakeTable(std::vector<std::int64_t> keys) : keys_(std::move(keys)) { std::sort(keys_.begin(), keys_.end()); }

    const std::vector<std::int64_t>& keys() const { return keys_; }
    using Iterator = std::vector<std::int64_t>::const_iterator;

    // The first key at or after `key` (inclusive) or strictly after it.
    Iterator from(const std::optional<KeyValue>& key, bool inclusive) const {
        if (!key) return keys_.begin();
        return inclusive ? std::lower_bound(keys_.begin(), keys_.end(), int_key(*key))
                         : std::upper_bound(keys_.begin(), keys_.end(), int_key(*key));
    }
    // Past the last key strictly before `bound` (an open bound: the end).
    Iterator until(const std::optional<KeyValue>& bound) const {
        if (!bound) return keys_.end();
        return std::lower_bound(keys_.begin(), keys_.end(), int_key(*bound));
    }
    std::size_t count(const KeyRange& range) const {
        const auto first = from(range.lo, true), last = until(range.hi);
        return first < last ? static_cast<std::size_t>(last - first) : 0;
    }

    // find_midpoint's contract over these keys. The server's bisection lands on any value of the key's
    // span, so half the answers are a key of the table and half a value between two keys.
    std::optional<KeyValue> midpoint(const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                     std::uint64_t remaining_rows_estimate, bool after_inclusive) const {
        if (remaining_rows_estimate < 2) return std::nullopt;
        const auto first = from(after, after_inclusive), last = until(before);
        if (last - first < 2) return std::nullopt;
        const auto count = last - first;
        const auto upper = first + count / 2;
        return key_of(count % 2 ? *upper : *(upper - 1) + 1);
    }
    // key_before's contract: a row in [position, bound).
    bool before(const KeyValue& position, const KeyValue& bound) const {
        const auto first = from(position, true);
        return first != keys_.end() && *first < int_key(bound);
    }

private:
    std::vector<std::int64_t> keys_;
};

// One range a page at a time, one column (the key, as its text), as PageReader pages it: strictly after
// the last key delivered, below the upper bound as it stands when the page is read, and a short page ends
// the range without an empty round trip.
class FakeRangeReader final : public RangeReader {
public:
    FakeRangeReader(const FakeTable& table, KeyRange range, std::optional<KeyValue> resume_after, std::size_t page_size)
        : table_(table), range_(std::move(range)), position_(std::move(resume_after)), page_size_(page_size) {}

    std::optional<Page> next_page() override {
        if (finished_) return std::nullopt;
        Page page = spare_ ? std::move(*spare_) : Page(1);
        spare_.reset();
        page.reset(1);
        auto key = position_ ? table_.from(position_, false) : table_.from(range_.lo, true);
        const auto end = table_.until(range_.hi);
        std::size_t rows = 0;
        for (; key < end && rows < page_size_; ++key, ++rows) page.append(std::to_string(*key));
        if (rows < page_size_) finished_ = true;
        if (rows == 0) return std::nullopt;
        position_ = key_of(*(key - 1));
        page.set_last_key(*position_);
        return page;
    }
    void recycle(Page page) override { spare_ = std::move(page); }
    const std::optional<KeyValue>& position() const override { return position_; }
    const KeyRange& range() const override { return range_; }
    void set_upper_bound(std::optional<KeyValue> hi) override { range_.hi = std::move(hi); }
    void keep_alive() override {
        if (on_keep_alive) on_keep_alive();
    }

    // Called on each keep_alive: a reader streaming from a statement would end it there.
    std::function<void()> on_keep_alive;

private:
    const FakeTable& table_;
    KeyRange range_;
    std::optional<KeyValue> position_;
    std::size_t page_size_;
    bool finished_ = false;
    std::optional<Page> spare_;
};

class FakeWorkerReaders final : public WorkerReaders {
public:
    FakeWorkerReaders(const FakeTable& table, std::size_t page_size) : table_(table), page_size_(page_size) {}
    std::unique_ptr<RangeReader> open(const KeyRange& range, const std::optional<KeyValue>& resume_after) override {
        return std::make_unique<FakeRangeReader>(table_, range, resume_after, page_size_);
    }

private:
    const FakeTable& table_;
    std::size_t page_size_;
};

// A worker's control connection: one user at a time, as a real connection must have it.
class FakeKeyOrder final : public KeyOrder {
public:
    FakeKeyOrder(const FakeTable& table, Violations& violations) : table_(table), violations_(violations) {}

    std::optional<KeyValue> midpoint(const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                     std::uint64_t remaining_rows_estimate, bool after_inclusive) override {
        const Use use(*this);
        return table_.midpoint(after, before, remaining_rows_estimate, after_inclusive);
    }
    bool before(const KeyValue& position, const KeyValue& bound) override {
        const Use use(*this);
        return table_.before(position, bound);
    }

private:
    struct Use {
        explicit Use(FakeKeyOrder& order) : order_(order) {
            if (order_.users_.fetch_add(1) != 0) order_.violations_.add("a control connection used by two threads at once");
        }
        ~Use() { order_.users_.fetch_sub(1); }
        FakeKeyOrder& order_;
    };

    const FakeTable& table_;
    Violations& violations_;
    std::atomic<int> users_{0};
};

}  // namespace rowpump::test
