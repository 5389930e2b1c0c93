// The jumps' bookmarks shared by the Cursors of one query in a process (src/cursor/bookmark_shelf.hpp):
// a second Cursor of the query takes them instead of placing them again, one of another sort or table
// does not; Cursor::prepare_jumps places them before the first jump; after the table changed and the
// bookmarks' lifetime passed they are placed again; two threads making Cursors of one query at once place
// them once. Each jump's `how` says whose bookmarks it used: placed for this jump (the request paid for
// them), earlier by this Cursor, or by another Cursor of this query.
#include <latch>
#include <thread>

#include "cursor/bookmark_shelf.hpp"
#include "integration/cursor_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr std::size_t page_size = 20;
constexpr std::uint64_t page = 50;  // rows 981 to 1000 of 2000
const std::string sort = "created_at DESC, id DESC";

const char* const placed_now = "bookmarks placed for this jump";
const char* const placed_earlier = "bookmarks placed earlier by this Cursor";
const char* const placed_by_another = "bookmarks placed by another Cursor of this query";

class CursorSharedBookmarksTest : public CursorTest {
protected:
    void SetUp() override {
        CursorTest::SetUp();
        // Tests run in one process share the shelf, and each makes its table again under the same name.
        BookmarkShelf::process().clear();
    }
    void TearDown() override {
        BookmarkShelf::process().set_lifetime(BookmarkShelf::default_lifetime);
        CursorTest::TearDown();
    }

    // The approximate jump to `page`, checked against the server's ORDER BY; its `how`.
    std::string jump(Cursor& cursor, const std::string& order = sort) {
        const CursorPage landed = cursor.jump_approximate(page, page_size);
        EXPECT_EQ(landed.method, PageMethod::approximate_jump) << landed.how;
        const auto all = expected_ids(order);
        const std::vector<std::string> expected(all.begin() + (page - 1) * page_size, all.begin() + page * page_size);
        EXPECT_EQ(ids(landed), expected) << landed.how;
        return landed.how;
    }
};

bool says(const std::string& how, const char* origin) { return how.find(origin) != std::string::npos; }

TEST_F(CursorSharedBookmarksTest, ASecondCursorOfTheQueryTakesThePlacedBookmarks) {
    Cursor first = make_cursor(sort);
    EXPECT_TRUE(says(jump(first), placed_now));
    EXPECT_TRUE(says(jump(first), placed_earlier));
    // The columns shown and the signing keys are not part of the query's bookmarks.
    Cursor second(options(), CursorSpec{table_, parse_sort(sort), {"id", "title"}, {}}, CursorKeys{std::string(32, 'z'), ""});
    const CursorPage landed = second.jump_approximate(page, page_size);
    EXPECT_TRUE(says(landed.how, placed_by_another)) << landed.how;
    EXPECT_EQ(ids(landed), ids(first.jump_approximate(page, page_size)));
    EXPECT_TRUE(says(jump(second), placed_by_another));
}

TEST_F(CursorSharedBookmarksTest, ACursorOfAnotherSortOrTableDoesNotGetThem) {
    Cursor first = make_cursor(sort);
    EXPECT_TRUE(says(jump(first), placed_now));
    Cursor other_sort = make_cursor("created_at ASC, id ASC");
    EXPECT_TRUE(says(jump(other_sort, "created_at ASC, id ASC"), placed_now));

    const std::string other = tables().create("cursor_other", source_table()->definition);
    tables().execute(other, source_table()->rows_sql);
    Cursor other_table(options(), CursorSpec{other, parse_sort(sort), {}, {}}, CursorKeys{key(), ""});
    const CursorPage landed = other_table.jump_approximate(page, page_size);
    EXPECT_TRUE(says(landed.how, placed_now)) << landed.how;
    // A filtered list has no bookmarks to share: its jumps count exactly.
    EXPECT_FALSE(make_cursor(sort, {{"shop", "1"}}).prepare_jumps());
}

TEST_F(CursorSharedBookmarksTest, PrepareJumpsPlacesThemBeforeTheFirstJump) {
    Cursor prepared = make_cursor(sort);
    EXPECT_TRUE(prepared.prepare_jumps());
    EXPECT_TRUE(says(jump(prepared), placed_earlier));
    Cursor later = make_cursor(sort);
    EXPECT_TRUE(later.prepare_jumps());
    EXPECT_TRUE(says(jump(later), placed_by_another));
}

// Within the lifetime the bookmarks serve though the table changed (the approximate jump lands near; the
// exact counts are checked against the table's version wherever they are used); past it, a changed
// table's bookmarks are placed again, and the new ones serve the query's other Cursors. The lifetime is
// shortened to nothing rather than waited for.
TEST_F(CursorSharedBookmarksTest, AfterTheTableChangesAndTheLifetimePassesTheyArePlacedAgain) {
    wait_for_a_second_after_the_last_change(tables(), table_);
    Cursor first = make_cursor(sort);
    EXPECT_TRUE(first.prepare_jumps());
    tables().execute(table_, "INSERT INTO {t} (created_at, shop, title) VALUES ('2030-01-01', 1, 'new')");
    Cursor within = make_cursor(sort);
    EXPECT_TRUE(says(jump(within), placed_by_another));

    BookmarkShelf::process().set_lifetime(std::chrono::seconds(0));
    Cursor past = make_cursor(sort);
    EXPECT_TRUE(says(jump(past), placed_now));
    // The first Cursor's own bookmarks are stale too: it takes the new ones, which hold while the table
    // is unchanged, whatever their age.
    EXPECT_TRUE(says(jump(first), placed_by_another));
    EXPECT_TRUE(says(jump(past), placed_earlier));
}

TEST_F(CursorSharedBookmarksTest, TwoThreadsMakingCursorsOfOneQueryPlaceThemOnce) {
    std::latch start(2);
    std::string how[2];
    std::vector<std::string> rows[2];
    std::thread threads[2];
    for (int t = 0; t < 2; ++t) {
        threads[t] = std::thread([&, t] {
            Cursor cursor = make_cursor(sort);
            start.arrive_and_wait();  // both Cursors made: their first jumps begin together
            const CursorPage landed = cursor.jump_approximate(page, page_size);
            how[t] = landed.how;
            rows[t] = ids(landed);
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(says(how[0], placed_now) + says(how[1], placed_now), 1) << how[0] << " | " << how[1];
    EXPECT_EQ(says(how[0], placed_by_another) + says(how[1], placed_by_another), 1) << how[0] << " | " << how[1];
    const auto all = expected_ids(sort);
    const std::vector<std::string> expected(all.begin() + (page - 1) * page_size, all.begin() + page * page_size);
    EXPECT_EQ(rows[0], expected);
    EXPECT_EQ(rows[1], expected);
}

}  // namespace
}  // namespace rowpump::test
