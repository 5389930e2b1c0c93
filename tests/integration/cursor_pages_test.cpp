// Cursor pages against MariaDB: forward and backward walks in every direction mix against the server's own
// ORDER BY, a filter, the exact jump and window links against the walk, refused tokens, and EXPLAIN of
// every statement shape (an index, never a full scan).
#include <gtest/gtest.h>

#include <algorithm>

#include "cursor/cursor_sql.hpp"
#include "integration/cursor_fixture.hpp"

namespace rowpump::test {
namespace {

class CursorPagesTest : public CursorTest {};

TEST_F(CursorPagesTest, ForwardWalkMatchesTheServersOrderWithPageNumbers) {
    Cursor cursor = make_cursor("created_at DESC, id DESC");
    const auto pages = walk_forward(cursor, 20);
    EXPECT_EQ(flatten(pages), expected_ids("created_at DESC, id DESC"));
    ASSERT_EQ(pages.size(), 100u);  // 2000 rows
    for (std::size_t i = 0; i < pages.size(); ++i) {
        EXPECT_EQ(pages[i].page_number, i + 1);
        EXPECT_EQ(pages[i].has_previous_page, i > 0);
        EXPECT_EQ(pages[i].has_next_page, i + 1 < pages.size());
    }
}

TEST_F(CursorPagesTest, BackwardWalkComesBackInDisplayOrder) {
    for (const std::string sort : {"created_at DESC, id DESC", "created_at ASC, id DESC", "created_at DESC, id ASC",
                                   "id ASC", "shop ASC, created_at DESC, id ASC"}) {
        Cursor cursor = make_cursor(sort);
        const auto expected = expected_ids(sort);
        EXPECT_EQ(flatten(walk_forward(cursor, 17)), expected) << sort;
        auto pages = walk_backward(cursor, 17);
        std::reverse(pages.begin(), pages.end());
        EXPECT_EQ(flatten(pages), expected) << sort;
        EXPECT_FALSE(pages.front().has_previous_page) << sort;
        EXPECT_TRUE(pages.front().has_next_page) << sort;
    }
}

TEST_F(CursorPagesTest, AFilterBindsItsValue) {
    Cursor cursor = make_cursor("created_at DESC, id DESC", {{"shop", "1"}});
    EXPECT_EQ(flatten(walk_forward(cursor, 30)), expected_ids("created_at DESC, id DESC", "shop = 1"));
    Cursor injected = make_cursor("id", {{"title", "x' OR '1'='1"}});
    EXPECT_EQ(injected.page(PageRequest::first(10)).rows.row_count(), 0u);
}

TEST_F(CursorPagesTest, ExactJumpLandsOnTheWalksPage) {
    Cursor cursor = make_cursor("created_at DESC, id DESC");
    const auto pages = walk_forward(cursor, 20);
    for (const std::uint64_t n : {1u, 7u, 100u}) {
        const CursorPage jumped = cursor.jump_exact(n, 20);
        EXPECT_EQ(jumped.method, PageMethod::exact_jump);
        EXPECT_EQ(ids(jumped), ids(pages[n - 1])) << n;
        EXPECT_EQ(jumped.has_next_page, n < 100);
        EXPECT_EQ(jumped.has_previous_page, n > 1);
        // Its cursors carry the number on: the next page from it is page n + 1.
        if (n < 100) {
            EXPECT_EQ(cursor.page(PageRequest::after(jumped.end_cursor, 20)).page_number, n + 1);
        }
    }
    EXPECT_EQ(cursor.jump_exact(101, 20).rows.row_count(), 0u);
}

TEST_F(CursorPagesTest, WindowLinksOpenThePagesAroundTheCurrentOne) {
    Cursor cursor = make_cursor("created_at ASC, id DESC");
    const auto pages = walk_forward(cursor, 20);
    const auto follow = [&](const PageLink& link) {
        return link.after.empty() ? cursor.page(PageRequest::first(20)) : cursor.page(PageRequest::after(link.after, 20));
    };
    for (const std::string* token : {&pages[9].start_cursor, &pages[9].end_cursor}) {
        const auto links = cursor.window(*token, 20, 3);
        ASSERT_EQ(links.size(), 6u);
        for (const auto& link : links) {
            EXPECT_EQ(link.page_number, static_cast<std::uint64_t>(10 + link.offset));
            EXPECT_EQ(ids(follow(link)), ids(pages[link.page_number - 1])) << link.offset;
        }
    }
    // Near the ends the window is cut short: page 2 links back to page 1 (the first page, no token), and
    // the last page links forward to nothing.
    const auto near_start = cursor.window(pages[1].start_cursor, 20, 3);
    EXPECT_EQ(near_start.front().offset, -1);
    EXPECT_EQ(near_start.front().after, "");
    EXPECT_EQ(ids(follow(near_start.front())), ids(pages[0]));
    const auto at_end = cursor.window(pages.back().start_cursor, 20, 3);
    EXPECT_EQ(at_end.back().offset, -1);
    EXPECT_EQ(at_end.size(), 3u);
}

TEST_F(CursorPagesTest, BadTokensAreRefusedWithTheirReason) {
    Cursor cursor = make_cursor("created_at DESC, id DESC");
    const CursorPage first = cursor.page(PageRequest::first(10));
    std::string altered = first.end_cursor;
    altered[12] = altered[12] == 'A' ? 'B' : 'A';
    EXPECT_NE(error_of<InvalidCursor>([&] { cursor.page(PageRequest::after(altered, 10)); }).find("altered"), std::string::npos);
    Cursor other = make_cursor("created_at DESC, id DESC", {{"shop", "2"}});
    EXPECT_NE(error_of<InvalidCursor>([&] { other.page(PageRequest::after(first.end_cursor, 10)); }).find("another query"),
              std::string::npos);
    Cursor rotated = make_cursor("created_at DESC, id DESC", {}, CursorKeys{std::string(32, 'n'), ""});
    EXPECT_NE(error_of<InvalidCursor>([&] { rotated.page(PageRequest::before(first.start_cursor, 10)); }).find("key"),
              std::string::npos);
    Cursor rotated_keeping_old = make_cursor("created_at DESC, id DESC", {}, CursorKeys{std::string(32, 'n'), key()});
    EXPECT_EQ(ids(rotated_keeping_old.page(PageRequest::after(first.end_cursor, 10))),
              ids(cursor.page(PageRequest::after(first.end_cursor, 10))));
}

TEST_F(CursorPagesTest, EveryStatementShapeUsesAnIndex) {
    for (const std::string sort : {"created_at DESC, id DESC", "created_at ASC, id DESC", "id DESC"}) {
        for (const bool filtered : {false, true}) {
            CursorSpec spec{table_, parse_sort(sort), {}, {}};
            if (filtered) spec.equals = {{"shop", "1"}};
            const TableInfo info = describe_table(options(), table_);
            const CursorSql sql(info, spec, check_sort(info, spec.sort));
            const KeyValue at = sort == "id DESC" ? KeyValue{std::int64_t{250}}
                                                   : KeyValue{std::string("2024-01-01 00:20:00"), std::int64_t{250}};
            for (const bool backward : {false, true}) {
                expect_index(sql.page(backward, std::nullopt, 21), sort);
                expect_index(sql.page(backward, at, 21), sort);
                expect_index(sql.exists(backward, at), sort);
                expect_index(sql.sort_values(backward, at, 60), sort);
            }
            expect_index(sql.jump(200, 21), sort);
        }
    }
}

}  // namespace
}  // namespace rowpump::test
