// RangeBoard without a server: the order ranges are handed out in, who is asked to split, what a split
// moves, and when acquire() stops waiting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <limits>
#include <thread>

#include "run/range_board.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t uint_max = std::numeric_limits<std::uint64_t>::max();

// A plan of ranges [bounds[i], bounds[i + 1]) (the first open below, the last open above), holding
// `estimates[i]` rows each.
PartitionPlan plan_of(const std::vector<std::int64_t>& bounds, const std::vector<std::uint64_t>& estimates) {
    PartitionPlan plan;
    for (std::size_t i = 0; i < estimates.size(); ++i) {
        Partition partition;
        if (i > 0) partition.range.lo = KeyValue{bounds[i - 1]};
        if (i < bounds.size()) partition.range.hi = KeyValue{bounds[i]};
        partition.estimated_rows = estimates[i];
        plan.partitions.push_back(partition);
        plan.estimated_rows += estimates[i];
    }
    return plan;
}

// Waits up to two seconds for `condition`; the board polls every 100 ms.
template <class Condition>
bool eventually(Condition condition) {
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

// Another worker calling acquire() on its own thread. A test that ends while it still waits stops the
// board, so that the thread ends too.
class IdleWorker {
public:
    IdleWorker(RangeBoard& board, std::atomic<bool>& stop)
        : board_(board), stop_(stop), acquired_(std::async(std::launch::async, [&board] { return board.acquire(); })) {}
    ~IdleWorker() {
        if (acquired_.valid() && acquired_.wait_for(0s) != std::future_status::ready) {
            stop_ = true;
            board_.wake_all();
        }
    }
    IdleWorker(const IdleWorker&) = delete;
    IdleWorker& operator=(const IdleWorker&) = delete;

    // Its acquire() has returned `expected`, or does within two seconds.
    void expect_acquired(std::optional<std::size_t> expected) {
        ASSERT_EQ(acquired_.wait_for(2s), std::future_status::ready);
        EXPECT_EQ(acquired_.get(), expected);
    }
    // Its acquire() still waits after `wait`.
    void expect_waiting(std::chrono::milliseconds wait) {
        EXPECT_EQ(acquired_.wait_for(wait), std::future_status::timeout) << "acquire() returned";
    }

private:
    RangeBoard& board_;
    std::atomic<bool>& stop_;
    std::future<std::optional<std::size_t>> acquired_;
};

class RangeBoardTest : public ::testing::Test {
protected:
    // An idle worker waits while range 0 is read, without asking it to split, and ends when it is done.
    void expect_idle_worker_waits_unasked(RangeBoard& board, const char* why) {
        IdleWorker idle(board, stop);
        idle.expect_waiting(300ms);  // the reader may still split its range
        EXPECT_FALSE(board.at(0).split_requested) << why;
        board.finish(0, true);
        idle.expect_acquired(std::nullopt);
    }

    std::atomic<bool> stop{false};
};

TEST_F(RangeBoardTest, HandsOutThePlansRangesInKeyOrderThenEndsWhenAllAreFinished) {
    RangeBoard board(plan_of({100, 200}, {10, 20, 30}), false, stop);
    EXPECT_EQ(board.acquire(), 0u);
    EXPECT_EQ(board.acquire(), 1u);
    EXPECT_EQ(board.acquire(), 2u);
    EXPECT_FALSE(board.at(0).range.lo);
    EXPECT_EQ(board.at(0).range.hi, (KeyValue{std::int64_t{100}}));
    EXPECT_EQ(board.at(1).range.lo, (KeyValue{std::int64_t{100}}));
    EXPECT_EQ(board.at(1).range.hi, (KeyValue{std::int64_t{200}}));
    EXPECT_EQ(board.at(2).range.lo, (KeyValue{std::int64_t{200}}));
    EXPECT_FALSE(board.at(2).range.hi);
    for (std::size_t i = 0; i < 3; ++i) board.finish(i, true);
    EXPECT_EQ(board.acquire(), std::nullopt);
}

TEST_F(RangeBoardTest, AnEmptyPlanEndsAtOnce) {
    RangeBoard board(PartitionPlan{}, true, stop);
    EXPECT_EQ(board.acquire(), std::nullopt);
    EXPECT_EQ(board.summary().ranges.size(), 0u);
    EXPECT_EQ(board.rows_written(), 0u);
}

TEST_F(RangeBoardTest, AStopEndsAcquireEvenWithRangesPending) {
    RangeBoard board(plan_of({}, {10}), false, stop);
    stop = true;
    EXPECT_EQ(board.acquire(), std::nullopt);
}

TEST_F(RangeBoardTest, WithoutStealingAcquireWaitsForTheReaderWithoutAskingItToSplit) {
    RangeBoard board(plan_of({}, {100000}), false, stop);
    ASSERT_EQ(board.acquire(), 0u);
    expect_idle_worker_waits_unasked(board, "no stealing: nobody is asked to split");
}

TEST_F(RangeBoardTest, AStopWakesAWaitingAcquire) {
    RangeBoard board(plan_of({}, {10}), false, stop);
    ASSERT_EQ(board.acquire(), 0u);
    IdleWorker waiting(board, stop);
    waiting.expect_waiting(150ms);
    stop = true;
    board.wake_all();
    waiting.expect_acquired(std::nullopt);
}

TEST_F(RangeBoardTest, AnIdleWorkerAsksTheLargestUnreadRemainderToSplit) {
    RangeBoard board(plan_of({100, 200}, {9000, 12000, 20000}), true, stop);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(board.acquire());
    board.at(0).rows_read = 1000;   // 8000 left
    board.at(2).rows_read = 13000;  // 7000 left: the largest estimate, not the largest remainder
    IdleWorker idle(board, stop);
    ASSERT_TRUE(eventually([&] { return board.at(1).split_requested.load(); }));
    EXPECT_FALSE(board.at(0).split_requested);
    EXPECT_FALSE(board.at(2).split_requested);

    board.add_split(1, KeyValue{std::int64_t{150}}, 6000);
    idle.expect_acquired(3u);
    if (HasFatalFailure()) return;
    EXPECT_EQ(board.at(1).range.lo, (KeyValue{std::int64_t{100}}));
    EXPECT_EQ(board.at(1).range.hi, (KeyValue{std::int64_t{150}})) << "the owner keeps the lower part";
    EXPECT_EQ(board.at(1).estimated_rows, 6000u);
    EXPECT_EQ(board.at(3).range.lo, (KeyValue{std::int64_t{150}}));
    EXPECT_EQ(board.at(3).range.hi, (KeyValue{std::int64_t{200}}));
    EXPECT_EQ(board.at(3).estimated_rows, 6000u);
    EXPECT_EQ(board.summary().steals, 1u);
}

TEST_F(RangeBoardTest, ASplitOfTheLastRangeKeepsItOpenAbove) {
    RangeBoard board(plan_of({}, {50000}), true, stop);
    ASSERT_EQ(board.acquire(), 0u);
    board.add_split(0, KeyValue{std::numeric_limits<std::int64_t>::max()}, 25000);
    EXPECT_FALSE(board.at(0).range.lo);
    EXPECT_EQ(board.at(0).range.hi, (KeyValue{std::numeric_limits<std::int64_t>::max()}));
    EXPECT_EQ(board.acquire(), 1u);
    EXPECT_EQ(board.at(1).range.lo, (KeyValue{std::numeric_limits<std::int64_t>::max()}));
    EXPECT_FALSE(board.at(1).range.hi);
}

TEST_F(RangeBoardTest, ASplitMovingMoreThanTheEstimateLeavesTheOwnerNone) {
    RangeBoard board(plan_of({}, {3000}), true, stop);
    ASSERT_EQ(board.acquire(), 0u);
    board.add_split(0, KeyValue{std::uint64_t{uint_max}}, 5000);
    EXPECT_EQ(board.at(0).estimated_rows, 0u) << "no wrap-around below zero";
    EXPECT_EQ(board.at(1).estimated_rows, 5000u);
    EXPECT_EQ(board.at(1).range.lo, (KeyValue{std::uint64_t{uint_max}}));
}

TEST_F(RangeBoardTest, RemainingNeverGoesBelowZero) {
    BoardRange range;
    range.estimated_rows = 100;
    EXPECT_EQ(range.remaining(), 100u);
    range.rows_read = 99;
    EXPECT_EQ(range.remaining(), 1u);
    range.rows_read = 100;
    EXPECT_EQ(range.remaining(), 0u);
    range.rows_read = uint_max;
    EXPECT_EQ(range.remaining(), 0u);
    range.estimated_rows = uint_max;
    range.rows_read = 0;
    EXPECT_EQ(range.remaining(), uint_max);
}

TEST_F(RangeBoardTest, NoSplitIsAskedOfARemainderBelow2000Rows) {
    RangeBoard board(plan_of({100}, {1999, 10}), true, stop);
    ASSERT_EQ(board.acquire(), 0u);
    ASSERT_EQ(board.acquire(), 1u);
    board.finish(1, true);
    expect_idle_worker_waits_unasked(board, "1999 rows left");
}

TEST_F(RangeBoardTest, ARemainderOfExactly2000RowsIsAskedToSplit) {
    RangeBoard board(plan_of({}, {2500}), true, stop);
    ASSERT_EQ(board.acquire(), 0u);
    board.at(0).rows_read = 500;
    IdleWorker idle(board, stop);
    EXPECT_TRUE(eventually([&] { return board.at(0).split_requested.load(); }));
    stop = true;
    board.wake_all();
    idle.expect_acquired(std::nullopt);
}

TEST_F(RangeBoardTest, ARangeWhoseOwnerRefusedIsNotAskedAgain) {
    RangeBoard board(plan_of({}, {100000}), true, stop);
    ASSERT_EQ(board.acquire(), 0u);
    IdleWorker idle(board, stop);
    ASSERT_TRUE(eventually([&] { return board.at(0).split_requested.load(); }));
    // The owner finds too little left and refuses (and takes the request; refusing first leaves the
    // waiting acquire no moment to ask again before the refusal is seen).
    board.refuse_split(0);
    board.at(0).split_requested = false;
    idle.expect_waiting(300ms);
    EXPECT_FALSE(board.at(0).split_requested) << "asked again after a refusal";
    board.finish(0, true);
    idle.expect_acquired(std::nullopt);
}

TEST_F(RangeBoardTest, SummaryAddsUpEachRangesRowsAndKeepsItsLastKeyAndEnd) {
    RangeBoard board(plan_of({100}, {60, 40}), false, stop);
    ASSERT_EQ(board.acquire(), 0u);
    ASSERT_EQ(board.acquire(), 1u);
    board.at(0).rows_read = 60;
    board.record_written(0, KeyValue{std::int64_t{50}}, 30);
    board.record_written(0, KeyValue{std::int64_t{99}}, 30);
    board.at(1).rows_read = 7;
    board.record_written(1, KeyValue{std::int64_t{106}}, 5);
    board.finish(0, true);
    board.finish(1, false);
    EXPECT_EQ(board.rows_written(), 65u);

    const JobSummary summary = board.summary();
    EXPECT_EQ(summary.rows_read, 67u);
    EXPECT_EQ(summary.rows_written, 65u);
    EXPECT_EQ(summary.steals, 0u);
    ASSERT_EQ(summary.ranges.size(), 2u);
    EXPECT_EQ(summary.ranges[0].rows_written, 60u);
    EXPECT_EQ(summary.ranges[0].estimated_rows, 60u);
    EXPECT_EQ(summary.ranges[0].last_written, (KeyValue{std::int64_t{99}}));
    EXPECT_TRUE(summary.ranges[0].finished);
    EXPECT_EQ(summary.ranges[1].rows_read, 7u);
    EXPECT_EQ(summary.ranges[1].last_written, (KeyValue{std::int64_t{106}}));
    EXPECT_FALSE(summary.ranges[1].finished) << "finished only when read to its end";
    EXPECT_EQ(summary.ranges[1].range.lo, (KeyValue{std::int64_t{100}}));
}

}  // namespace
}  // namespace rowpump
