// Pages under change: rows inserted and deleted between requests (and by another session while pages are
// read) never make a page repeat a row or skip one that existed throughout, in either direction, whatever
// the sort. The row a token points at may itself be deleted: the next page starts after its values.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "integration/cursor_fixture.hpp"

namespace rowpump::test {
namespace {

class CursorConsistencyTest : public CursorTest {
protected:
    // One round of change: a few rows inserted anywhere in the order, two original rows whose id is a
    // multiple of 10 deleted, and the row `token_row` the client's cursor points at when given.
    void change(mysql::Connection& session, std::mt19937& random, std::set<std::int64_t>& deleted,
                std::optional<std::int64_t> token_row) {
        for (int i = 0; i < 6; ++i)
            session.execute("INSERT INTO `" + table_ + "` (created_at, shop, title) VALUES ('2024-01-01' + INTERVAL ? MINUTE, ?, 'new')",
                            {static_cast<std::int64_t>(random() % 211), static_cast<std::int64_t>(random() % 3)});
        for (int i = 0; i < 2; ++i) {
            const auto id = static_cast<std::int64_t>(random() % item_rows / 10 * 10 + 10);
            session.execute("DELETE FROM `" + table_ + "` WHERE id = ?", {id});
            deleted.insert(id);
        }
        if (token_row) {
            session.execute("DELETE FROM `" + table_ + "` WHERE id = ?", {*token_row});
            deleted.insert(*token_row);
        }
    }

    // The rows of `pages` (in display order) are each read once, in the sort's order, and include every
    // row that was never deleted.
    void check(const std::vector<CursorPage>& pages, const std::string& sort, const std::set<std::int64_t>& deleted) {
        std::vector<std::string> seen = flatten(pages);
        std::set<std::string> unique(seen.begin(), seen.end());
        EXPECT_EQ(unique.size(), seen.size()) << sort << ": a row was read twice";
        std::size_t missing = 0;
        for (std::int64_t id = 1; id <= item_rows; ++id)
            if (!deleted.count(id) && !unique.count(std::to_string(id))) ++missing;
        EXPECT_EQ(missing, 0u) << sort << ": rows that existed throughout were skipped";
        // In order: the server sorts what was read the same way.
        std::string list;
        for (const auto& id : seen) list += (list.empty() ? "" : ",") + id;
        std::vector<std::string> sorted;
        for (const auto& row : tables().rows("SELECT CAST(id AS CHAR) FROM `" + table_ + "` WHERE FIND_IN_SET(id, ?) ORDER BY " + sort, {list}))
            sorted.push_back(*row[0]);
        std::vector<std::string> still_there;
        for (const auto& id : seen)
            if (std::find(sorted.begin(), sorted.end(), id) != sorted.end()) still_there.push_back(id);
        EXPECT_EQ(still_there, sorted) << sort << ": out of order";
        EXPECT_GT(seen.size(), std::size_t{item_rows} * 8 / 10);
    }

    static std::int64_t last_id(const CursorPage& page) { return std::stoll(std::string(*page.rows.value(page.rows.row_count() - 1, 0))); }
    static std::int64_t first_id(const CursorPage& page) { return std::stoll(std::string(*page.rows.value(0, 0))); }
};

TEST_F(CursorConsistencyTest, ChangesBetweenRequestsNeitherRepeatNorSkip) {
    for (const std::string sort : {"created_at DESC, id DESC", "created_at ASC, id DESC", "shop ASC, created_at DESC, id ASC"}) {
        refill();  // the same rows for each sort
        Cursor cursor = make_cursor(sort);
        mysql::Connection writer(options());
        std::mt19937 random(42);
        std::set<std::int64_t> deleted;
        std::vector<CursorPage> pages{cursor.page(PageRequest::first(25))};
        for (int round = 1; pages.back().has_next_page && round <= 1000; ++round) {
            change(writer, random, deleted, round % 3 == 0 ? std::optional(last_id(pages.back())) : std::nullopt);
            pages.push_back(cursor.page(PageRequest::after(pages.back().end_cursor, 25)));
        }
        check(pages, sort, deleted);

        // Backward, from the end, deleting the row each `before` token points at now and then.
        std::vector<CursorPage> back{cursor.page(PageRequest::last(25))};
        for (int round = 1; back.back().has_previous_page && round <= 1000; ++round) {
            change(writer, random, deleted, round % 3 == 0 ? std::optional(first_id(back.back())) : std::nullopt);
            back.push_back(cursor.page(PageRequest::before(back.back().start_cursor, 25)));
        }
        std::reverse(back.begin(), back.end());
        check(back, sort, deleted);
    }
}

TEST_F(CursorConsistencyTest, AWriterRunningDuringTheWalkNeitherRepeatsNorSkips) {
    const std::string sort = "created_at DESC, id DESC";
    Cursor cursor = make_cursor(sort);
    std::set<std::int64_t> deleted;
    std::atomic<bool> reading{true};
    std::atomic<int> rounds{0};
    std::string writer_error;
    std::thread writer([&] {
        // No gtest assertion and no exception may leave this thread: a failure is kept for the test.
        try {
            mysql::Connection session(options());
            std::mt19937 random(7);
            while (reading.load()) {
                change(session, random, deleted, std::nullopt);
                ++rounds;
            }
        } catch (const std::exception& error) {
            writer_error = error.what();
        }
    });
    std::vector<CursorPage> pages{cursor.page(PageRequest::first(25))};
    while (pages.back().has_next_page && pages.size() <= 1000)
        pages.push_back(cursor.page(PageRequest::after(pages.back().end_cursor, 25)));
    reading.store(false);
    writer.join();
    EXPECT_EQ(writer_error, "");
    check(pages, sort, deleted);
    EXPECT_GT(rounds.load(), 0) << "the writer changed nothing while the pages were read";
}

}  // namespace
}  // namespace rowpump::test
