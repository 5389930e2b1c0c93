#pragma once
// The job's ranges and who reads them. Workers take pending ranges; an idle worker with nothing left
// to take asks the owner of the largest unread remainder to split it. The owner splits at its next page
// boundary, where it knows exactly where it is, so no row is read twice or skipped.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "rowpump/job.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump {

struct BoardRange {
    KeyRange range;
    std::uint64_t estimated_rows = 0;
    std::atomic<std::uint64_t> rows_read{0};
    std::atomic<std::uint64_t> rows_written{0};
    std::atomic<bool> split_requested{false};
    bool splittable = true;   // false once the owner found too little left to split
    bool reading = false;
    bool finished = false;
    bool split_off = false;  // taken from another range by add_split
    std::optional<KeyValue> last_written;  // guarded by the board's mutex

    std::uint64_t remaining() const {
        const auto read = rows_read.load();
        return estimated_rows > read ? estimated_rows - read : 0;
    }
};

class RangeBoard {
public:
    RangeBoard(const PartitionPlan& plan, bool stealing, const std::atomic<bool>& stop);

    // The next range to read, blocking while another worker may still split one off; nullopt when the
    // job is done or stopping.
    std::optional<std::size_t> acquire();
    void finish(std::size_t index, bool completed);
    BoardRange& at(std::size_t index);

    // Called by a range's owner between pages: hands [split, old hi) to the board as a new range.
    void add_split(std::size_t from, const KeyValue& split, std::uint64_t moved_rows);
    // The owner could not split (too little left): do not ask again.
    void refuse_split(std::size_t index);
    void record_written(std::size_t index, const KeyValue& last_key, std::uint64_t rows);

    JobSummary summary() const;
    // In summary()'s order: which ranges are being read, and which were split off (for /status).
    std::vector<RangeActivity> activity() const;
    std::uint64_t rows_written() const;
    void wake_all();

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::unique_ptr<BoardRange>> ranges_;  // deque: references stay valid as ranges are added
    std::deque<std::size_t> pending_;
    std::size_t reading_ = 0;
    std::size_t steals_ = 0;
    bool stealing_;
    const std::atomic<bool>& stop_;
};

}  // namespace rowpump
