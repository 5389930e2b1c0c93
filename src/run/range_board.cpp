#include "run/range_board.hpp"

#include <chrono>

namespace rowpump {

namespace {
// Splitting a remainder smaller than this costs more than it saves.
constexpr std::uint64_t min_rows_to_split = 2000;
}  // namespace

RangeBoard::RangeBoard(const PartitionPlan& plan, bool stealing, const std::atomic<bool>& stop)
    : stealing_(stealing), stop_(stop) {
    for (const auto& partition : plan.partitions) {
        auto range = std::make_unique<BoardRange>();
        range->range = partition.range;
        range->estimated_rows = partition.estimated_rows;
        pending_.push_back(ranges_.size());
        ranges_.push_back(std::move(range));
    }
}

std::optional<std::size_t> RangeBoard::acquire() {
    std::unique_lock lock(mutex_);
    while (!stop_.load()) {
        if (!pending_.empty()) {
            const std::size_t index = pending_.front();
            pending_.pop_front();
            ranges_[index]->reading = true;
            ++reading_;
            return index;
        }
        if (reading_ == 0) return std::nullopt;
        if (stealing_) {
            BoardRange* largest = nullptr;
            for (auto& range : ranges_) {
                if (!range->reading || !range->splittable || range->split_requested.load()) continue;
                if (range->remaining() < min_rows_to_split) continue;
                if (!largest || range->remaining() > largest->remaining()) largest = range.get();
            }
            if (largest) largest->split_requested.store(true);
        }
        changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
    return std::nullopt;
}

void RangeBoard::finish(std::size_t index, bool completed) {
    std::lock_guard lock(mutex_);
    ranges_[index]->reading = false;
    ranges_[index]->finished = completed;
    --reading_;
    changed_.notify_all();
}

BoardRange& RangeBoard::at(std::size_t index) {
    std::lock_guard lock(mutex_);
    return *ranges_[index];
}

void RangeBoard::add_split(std::size_t from, const KeyValue& split, std::uint64_t moved_rows) {
    std::lock_guard lock(mutex_);
    BoardRange& owner = *ranges_[from];
    auto taken = std::make_unique<BoardRange>();
    taken->range = {split, owner.range.hi};
    taken->estimated_rows = moved_rows;
    taken->split_off = true;
    owner.range.hi = split;
    owner.estimated_rows = owner.estimated_rows > moved_rows ? owner.estimated_rows - moved_rows : 0;
    pending_.push_back(ranges_.size());
    ranges_.push_back(std::move(taken));
    ++steals_;
    changed_.notify_all();
}

void RangeBoard::refuse_split(std::size_t index) {
    std::lock_guard lock(mutex_);
    ranges_[index]->splittable = false;
    changed_.notify_all();
}

void RangeBoard::record_written(std::size_t index, const KeyValue& last_key, std::uint64_t rows) {
    std::lock_guard lock(mutex_);
    ranges_[index]->last_written = last_key;
    ranges_[index]->rows_written += rows;
}

std::uint64_t RangeBoard::rows_written() const {
    std::lock_guard lock(mutex_);
    std::uint64_t total = 0;
    for (const auto& range : ranges_) total += range->rows_written.load();
    return total;
}

void RangeBoard::wake_all() {
    std::lock_guard lock(mutex_);
    changed_.notify_all();
}

JobSummary RangeBoard::summary() const {
    std::lock_guard lock(mutex_);
    JobSummary summary;
    summary.steals = steals_;
    for (const auto& range : ranges_) {
        RangeSummary out;
        out.range = range->range;
        out.rows_read = range->rows_read.load();
        out.rows_written = range->rows_written.load();
        out.estimated_rows = range->estimated_rows;
        out.last_written = range->last_written;
        out.finished = range->finished;
        summary.rows_read += out.rows_read;
        summary.rows_written += out.rows_written;
        summary.ranges.push_back(std::move(out));
    }
    return summary;
}

std::vector<RangeActivity> RangeBoard::activity() const {
    std::lock_guard lock(mutex_);
    std::vector<RangeActivity> out;
    for (const auto& range : ranges_) out.push_back({range->reading, range->split_off});
    return out;
}

}  // namespace rowpump
