// The jumps' bookmarks on a table of 300,000 rows whose created_at is skewed (quadratic: most rows early
// in the span). The approximate jump (Cursor::jump_approximate): where each page lands, measured by a
// COUNT of the rows before its first row, against where it was asked to land, for three sorts; its rows
// are the list's rows from there; next and previous go on from it; with a filter it is the exact jump
// and says so. The bookmarks' calibration: past the rows counted, their places against COUNT. The exact
// jump from counted bookmarks: OFFSET's rows, before and after rows are inserted and deleted; its counts
// serve the query's next Cursor.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "cursor/bookmark_shelf.hpp"
#include "cursor/page_bookmarks.hpp"
#include "integration/cursor_fixture.hpp"
#include "rowpump/cursor.hpp"

namespace rowpump::test {
namespace {

constexpr int table_rows = 300'000;
constexpr std::size_t page_size = 20;
// The goal: a landing within 1% of the position asked for.
constexpr double tolerance = 0.01;

class CursorApproximateTest : public MySqlTest {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"cursor_approx",
                           "(id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME NOT NULL, shop INT NOT NULL, "
                           "title VARCHAR(20) NOT NULL, KEY by_created (created_at), KEY by_shop (shop, created_at))",
                           "INSERT INTO {t} SELECT seq, '2020-01-01' + INTERVAL FLOOR(POW(seq * 7919 % " +
                               std::to_string(table_rows) + ", 2) / 2000) SECOND, seq % 5, CONCAT('item ', seq) "
                               "FROM seq_1_to_" + std::to_string(table_rows)};
    }
    void SetUp() override {
        MySqlTest::SetUp();
        tables().rows("ANALYZE TABLE `" + table_ + "`");
    }

    Cursor make_cursor(const std::string& sort, std::vector<std::pair<std::string, std::string>> equals = {}) {
        return Cursor(options(), CursorSpec{table_, parse_sort(sort), {"id", "created_at"}, std::move(equals)},
                      CursorKeys{std::string(32, 'k'), ""});
    }

    // The first row's id and created_at.
    static std::pair<std::string, std::string> first_row(const CursorPage& page) {
        return {std::string(*page.rows.value(0, 0)), std::string(*page.rows.value(0, 1))};
    }
    static std::vector<std::string> ids(const CursorPage& page) {
        std::vector<std::string> out;
        for (std::size_t r = 0; r < page.rows.row_count(); ++r) out.emplace_back(*page.rows.value(r, 0));
        return out;
    }

    // The rows before (id, created_at) in the sort `created_at <dir>, id <dir>` (or `id ASC` when
    // `created` is empty): the row's exact position, counted by the server.
    std::uint64_t position_of(const std::pair<std::string, std::string>& row, const std::string& created,
                              const std::string& id) {
        const std::string id_before = id == "ASC" ? "id < ?" : "id > ?";
        std::string where;
        std::vector<mysql::Param> params;
        if (created.empty()) {
            where = id_before;
            params = {std::stoll(row.first)};
        } else {
            const std::string op = created == "ASC" ? "<" : ">";
            where = "created_at " + op + " ? OR (created_at = ? AND " + id_before + ")";
            params = {row.second, row.second, std::stoll(row.first)};
        }
        return std::stoull(*tables().rows("SELECT COUNT(*) FROM `" + table_ + "` WHERE " + where, params)[0][0]);
    }

    std::vector<std::string> list_ids(const std::string& sort, std::uint64_t from, std::size_t count) {
        std::vector<std::string> out;
        for (const auto& row : tables().rows("SELECT CAST(id AS CHAR) FROM `" + table_ + "` ORDER BY " + sort +
                                             " LIMIT " + std::to_string(from) + ", " + std::to_string(count)))
            out.push_back(*row[0]);
        return out;
    }
};

// The whole table is within the rows the bookmarks' calibration counts (PageBookmarks::
// default_calibration_rows), so every bookmark's position is counted: a landing is exact, not just within
// 1% of the position (the walk from a bookmark is exact), whenever the counts are kept, which they are
// when made in a later second than the table's last change.
TEST_F(CursorApproximateTest, LandsOnThePositionAskedWhenTheBookmarksAreCounted) {
    struct Sort {
        std::string text;
        std::string created;  // the direction of created_at, "" when the sort is id alone
        std::string id;
    };
    wait_for_a_second_after_the_last_change(tables(), table_);
    for (const Sort& sort : {Sort{"created_at DESC, id DESC", "DESC", "DESC"}, Sort{"created_at ASC, id DESC", "ASC", "DESC"},
                             Sort{"id ASC", "", "ASC"}}) {
        Cursor cursor = make_cursor(sort.text);
        for (const std::uint64_t page : {2u, 1'000u, 5'000u, 7'500u, 11'000u, 14'900u}) {
            const CursorPage landed = cursor.jump_approximate(page, page_size);
            ASSERT_EQ(landed.method, PageMethod::approximate_jump) << sort.text;
            ASSERT_EQ(landed.rows.row_count(), page_size) << sort.text << " page " << page;
            EXPECT_EQ(landed.page_number, page);
            EXPECT_NEAR(static_cast<double>(landed.total_rows_estimate), table_rows, table_rows * 0.01) << sort.text;
            const std::uint64_t asked = (page - 1) * page_size;
            const std::uint64_t at = position_of(first_row(landed), sort.created, sort.id);
            EXPECT_EQ(at, asked) << sort.text << ": page " << page << " landed " << landed.how;
            EXPECT_NE(landed.how.find("exact row"), std::string::npos) << landed.how;
            // The rows are the list's own from where it landed.
            EXPECT_EQ(ids(landed), list_ids(sort.text, at, page_size)) << sort.text << " page " << page;
            EXPECT_EQ(landed.has_previous_page, at > 0);
            EXPECT_TRUE(landed.has_next_page);
        }
    }
}

// Past the rows counted, a bookmark is placed at the deepest counted one plus its estimated distance
// from it, scaled by the counted/estimated ratio there. The places the estimates get wrong are their
// shape, not their scale: measured here with 30,000 rows counted (a tenth of the table), every later
// bookmark's place against COUNT, for a skewed first column in both directions.
TEST_F(CursorApproximateTest, PastTheCountedRowsTheCalibratedPlacesAreWithinOnePercent) {
    const TableInfo table = describe_table(options(), table_);
    mysql::Connection connection(options());
    for (const std::string sort : {"created_at DESC, id DESC", "created_at ASC, id DESC", "id ASC"}) {
        const auto bookmarks = PageBookmarks::build(connection, table, check_sort(table, parse_sort(sort)), false, 30'000);
        ASSERT_TRUE(bookmarks) << sort;
        double worst = 0;
        for (std::uint64_t asked = 35'000; asked < table_rows; asked += 20'000) {
            // The bookmark at or before `asked`, as the approximate jump finds it, whose counts are not
            // used (the version of another moment), then its true place: the rows before its rows.
            const PageBookmarks::Landing landing = bookmarks->at_or_before(asked, TableVersion{});
            if (landing.position < 30'000) continue;  // still among the counted ones
            const auto rows = tables().rows("SELECT COUNT(*) FROM `" + table_ + "` WHERE NOT (" + landing.from.sql + ")",
                                            landing.from.params);
            const double truth = std::stod(*rows[0][0]);
            const double off = std::fabs(static_cast<double>(landing.position) - truth) / truth;
            worst = std::max(worst, off);
            EXPECT_LE(off, tolerance) << sort << ": a bookmark placed at " << landing.position << " is at " << truth;
        }
        std::printf("%s: past 30,000 counted rows the worst bookmark was %.3f%% off its place (%s)\n", sort.c_str(),
                    worst * 100, bookmarks->method().c_str());
    }
}

// The exact jump counts each bookmark gap once and walks at most a gap from the counted bookmark below
// the page; rows added or removed since the counts change the table's UPDATE_TIME, and the next jump
// counts from the list's start: OFFSET's rows every time.
TEST_F(CursorApproximateTest, TheExactJumpFromCountedBookmarksGivesOffsetsRowsAcrossChanges) {
    const std::string sort = "created_at DESC, id DESC";
    wait_for_a_second_after_the_last_change(tables(), table_);
    Cursor cursor = make_cursor(sort);
    for (const std::uint64_t page : {14'000u, 3'001u, 9'999u}) {
        const CursorPage jumped = cursor.jump_exact(page, page_size);
        EXPECT_EQ(jumped.method, PageMethod::exact_jump);
        EXPECT_NE(jumped.how.find("from a bookmark at exact row"), std::string::npos) << jumped.how;
        EXPECT_EQ(ids(jumped), list_ids(sort, (page - 1) * page_size, page_size)) << page;
    }
    // Rows at the list's start (the latest created_at) and one deleted from its middle: every later
    // position moves.
    tables().rows("INSERT INTO `" + table_ + "` SELECT 1000000 + seq, '2030-01-01' + INTERVAL seq SECOND, 0, 'new' FROM seq_1_to_7");
    tables().rows("DELETE FROM `" + table_ + "` WHERE id = 150000");
    for (const std::uint64_t page : {14'000u, 3'001u}) {
        const CursorPage jumped = cursor.jump_exact(page, page_size);
        EXPECT_EQ(ids(jumped), list_ids(sort, (page - 1) * page_size, page_size)) << page << ": " << jumped.how;
    }
    wait_for_a_second_after_the_last_change(tables(), table_);
    const CursorPage jumped = cursor.jump_exact(9'999, page_size);
    EXPECT_NE(jumped.how.find("from a bookmark at exact row"), std::string::npos) << jumped.how;
    EXPECT_EQ(ids(jumped), list_ids(sort, 9'998 * page_size, page_size));
    const CursorPage landed = cursor.jump_approximate(9'000, page_size);
    EXPECT_EQ(ids(landed), list_ids(sort, 8'999 * page_size, page_size)) << landed.how;
}

// Exact positions one Cursor counts go back on the process's shelf for the query's next Cursors
// (bookmark_shelf.hpp): after a change, the placement's own counts no longer hold; the first Cursor's
// exact jump counts afresh, and a new Cursor's approximate jump then lands on a counted bookmark, exactly.
TEST_F(CursorApproximateTest, PositionsOneCursorCountsServeTheQuerysNextCursors) {
    const std::string sort = "created_at DESC, id DESC";
    BookmarkShelf::process().clear();
    wait_for_a_second_after_the_last_change(tables(), table_);
    Cursor first = make_cursor(sort);
    ASSERT_TRUE(first.prepare_jumps());
    tables().rows("DELETE FROM `" + table_ + "` WHERE id = 150000");
    wait_for_a_second_after_the_last_change(tables(), table_);
    const CursorPage jumped = first.jump_exact(14'000, page_size);
    EXPECT_NE(jumped.how.find("from a bookmark at exact row"), std::string::npos) << jumped.how;
    Cursor second = make_cursor(sort);
    const CursorPage landed = second.jump_approximate(14'000, page_size);
    EXPECT_NE(landed.how.find("from a bookmark at exact row"), std::string::npos) << landed.how;
    EXPECT_NE(landed.how.find("bookmarks placed by another Cursor of this query"), std::string::npos) << landed.how;
    EXPECT_EQ(ids(landed), list_ids(sort, 13'999 * page_size, page_size));
}

TEST_F(CursorApproximateTest, NextAndPreviousGoOnFromWhereItLanded) {
    Cursor cursor = make_cursor("created_at DESC, id DESC");
    const CursorPage landed = cursor.jump_approximate(6'000, page_size);
    const std::uint64_t at = position_of(first_row(landed), "DESC", "DESC");
    const CursorPage next = cursor.page(PageRequest::after(landed.end_cursor, page_size));
    EXPECT_EQ(next.page_number, 6'001u);
    EXPECT_EQ(ids(next), list_ids("created_at DESC, id DESC", at + page_size, page_size));
    const CursorPage previous = cursor.page(PageRequest::before(landed.start_cursor, page_size));
    EXPECT_EQ(previous.page_number, 5'999u);
    EXPECT_EQ(ids(previous), list_ids("created_at DESC, id DESC", at - page_size, page_size));
}

TEST_F(CursorApproximateTest, WithAFilterItIsTheExactJumpAndSaysSo) {
    Cursor cursor = make_cursor("created_at DESC, id DESC", {{"shop", "3"}});
    const CursorPage jumped = cursor.jump_approximate(100, page_size);
    EXPECT_EQ(jumped.method, PageMethod::exact_jump);
    EXPECT_EQ(jumped.total_rows_estimate, 0u);
    EXPECT_EQ(ids(jumped), ids(cursor.jump_exact(100, page_size)));
}

TEST_F(CursorApproximateTest, PastTheEndIsAnEmptyPageAndPageZeroIsRefused) {
    Cursor cursor = make_cursor("id ASC");
    const CursorPage past = cursor.jump_approximate(100'000, page_size);
    EXPECT_EQ(past.rows.row_count(), 0u);
    EXPECT_FALSE(past.has_next_page);
    EXPECT_TRUE(past.has_previous_page);
    EXPECT_THROW(cursor.jump_approximate(0, page_size), UsageError);
}

}  // namespace
}  // namespace rowpump::test
