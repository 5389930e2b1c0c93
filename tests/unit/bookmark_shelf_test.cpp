// The shelf's own rules, without a server (a placement here is "the estimates cannot place them", which
// needs no table): a query's placement is taken, not made again, while fresh; past the lifetime it is
// made again; the least recently used query goes past the capacity; a placement that fails leaves the
// next caller to place. Sharing real bookmarks between Cursors: integration/cursor_shared_bookmarks_test.cpp.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cursor/bookmark_shelf.hpp"

namespace rowpump {
namespace {

class BookmarkShelfTest : public ::testing::Test {
protected:
    // Takes `key`'s placement; true when it was placed by this call.
    bool placed(const std::string& key) {
        bool ran = false;
        const HeldBookmarks held = shelf.take(key, version, [&] {
            ran = true;
            return std::optional<PageBookmarks>();
        });
        EXPECT_EQ(held.placed_here, ran);
        return ran;
    }

    BookmarkShelf shelf;
    TableVersion version{100, 200, 50};  // changed at 100, now 200, created at 50
};

TEST_F(BookmarkShelfTest, AQuerysPlacementIsTakenWhileFresh) {
    EXPECT_TRUE(placed("a"));
    EXPECT_FALSE(placed("a"));
    EXPECT_TRUE(placed("b"));
}

TEST_F(BookmarkShelfTest, PastTheLifetimeAChangedTablesPlacementIsMadeAgain) {
    EXPECT_TRUE(placed("a"));
    shelf.set_lifetime(std::chrono::seconds(0));
    version.changed = 150;
    EXPECT_TRUE(placed("a"));
    EXPECT_FALSE(placed("a"));  // the table unchanged since: fresh at any age
    version.created = 60;       // the table made again under its name
    EXPECT_TRUE(placed("a"));
}

TEST_F(BookmarkShelfTest, TheLeastRecentlyUsedQueryGoesPastTheCapacity) {
    for (std::size_t i = 0; i < BookmarkShelf::capacity; ++i) EXPECT_TRUE(placed(std::to_string(i)));
    EXPECT_FALSE(placed("0"));  // used again: "1" is now the least recent
    EXPECT_TRUE(placed("new"));
    EXPECT_FALSE(placed("0"));
    EXPECT_TRUE(placed("1"));
}

TEST_F(BookmarkShelfTest, APlacementThatFailsLeavesTheNextCallerToPlace) {
    EXPECT_THROW(shelf.take("a", version, []() -> std::optional<PageBookmarks> { throw std::runtime_error("lost"); }),
                 std::runtime_error);
    EXPECT_TRUE(placed("a"));
}

}  // namespace
}  // namespace rowpump
