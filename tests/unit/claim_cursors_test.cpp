// ClaimCursors: one set of cursors per queue table in a process, a cursor per priority level, and the
// periodic reset that sends claims back to the head of each level.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <thread>

#include "backend/mysql_queue/claim_cursors.hpp"

namespace rowpump::queue {
namespace {

using namespace std::chrono_literals;

void expect_cursor(const ClaimCursors& cursors, std::int64_t level, const std::string& available_at, std::uint64_t id) {
    const auto cursor = cursors.at(level);
    ASSERT_TRUE(cursor) << "level " << level;
    EXPECT_EQ(cursor->available_at, available_at) << "level " << level;
    EXPECT_EQ(cursor->id, id) << "level " << level;
}

TEST(ClaimCursorsTest, QueuesOfOneTableShareTheirCursorsAndOtherTablesDoNot) {
    const auto first = ClaimCursors::shared("rp_test_server orders");
    const auto second = ClaimCursors::shared("rp_test_server orders");
    const auto other = ClaimCursors::shared("rp_test_server invoices");
    EXPECT_EQ(first, second);
    EXPECT_NE(first, other);
    first->move(3, {"2026-12-01 10:00:00.000001", 42});
    expect_cursor(*second, 3, "2026-12-01 10:00:00.000001", 42);
    EXPECT_FALSE(other->at(3)) << "another table's claims have not read there";
}

TEST(ClaimCursorsTest, TheLastQueueOfATableTakesItsCursorsAlong) {
    auto cursors = ClaimCursors::shared("rp_test_server short_lived");
    cursors->move(0, {"2026-12-01 10:00:00.000000", 7});
    cursors.reset();
    const auto again = ClaimCursors::shared("rp_test_server short_lived");
    EXPECT_FALSE(again->at(0)) << "a new queue on the table reads from the head";
}

TEST(ClaimCursorsTest, EachLevelHasItsOwnCursor) {
    ClaimCursors cursors;
    constexpr auto lowest = std::numeric_limits<std::int64_t>::min();
    constexpr auto highest = std::numeric_limits<std::int64_t>::max();
    EXPECT_FALSE(cursors.at(0)) << "no cursor yet: read from the head";
    cursors.move(lowest, {"2026-12-01 10:00:00.000000", 1});
    cursors.move(0, {"2026-12-01 11:00:00.000000", 2});
    cursors.move(highest, {"2026-12-01 12:00:00.000000", std::numeric_limits<std::uint64_t>::max()});
    expect_cursor(cursors, lowest, "2026-12-01 10:00:00.000000", 1);
    expect_cursor(cursors, 0, "2026-12-01 11:00:00.000000", 2);
    expect_cursor(cursors, highest, "2026-12-01 12:00:00.000000", std::numeric_limits<std::uint64_t>::max());
    EXPECT_FALSE(cursors.at(1));

    cursors.move(0, {"2026-12-01 11:00:00.500000", 9});
    expect_cursor(cursors, 0, "2026-12-01 11:00:00.500000", 9);
    cursors.erase(0);
    EXPECT_FALSE(cursors.at(0));
    cursors.erase(0);  // erasing a level without a cursor is harmless
    expect_cursor(cursors, lowest, "2026-12-01 10:00:00.000000", 1);
}

TEST(ClaimCursorsTest, ForgettingClearsEveryLevelAtMostOncePerAge) {
    ClaimCursors cursors;
    cursors.move(1, {"a", 1});
    cursors.move(2, {"b", 2});
    cursors.forget_older_than(10s);
    EXPECT_FALSE(cursors.at(1)) << "never forgotten before: forgotten now";
    EXPECT_FALSE(cursors.at(2));

    cursors.move(1, {"c", 3});
    cursors.forget_older_than(10s);
    expect_cursor(cursors, 1, "c", 3);  // forgotten less than 10 s ago

    std::this_thread::sleep_for(30ms);
    cursors.forget_older_than(20ms);
    EXPECT_FALSE(cursors.at(1));
}

TEST(ClaimCursorsTest, LockIsHeldUntilReleased) {
    ClaimCursors cursors;
    auto held = cursors.lock();
    EXPECT_TRUE(held.owns_lock());
    std::thread other([&] {
        // forget_older_than takes the lock itself: it waits for the claim holding it.
        cursors.forget_older_than(0ms);
    });
    cursors.move(5, {"x", 5});
    std::this_thread::sleep_for(50ms);
    expect_cursor(cursors, 5, "x", 5);
    held.unlock();
    other.join();
    EXPECT_FALSE(cursors.at(5));
}

}  // namespace
}  // namespace rowpump::queue
