#pragma once
// A table of items for cursor tests (2000 rows; created_at repeats, so ties are broken by id), cursors over
// it, walks through every page, and the server's own ORDER BY to compare them with.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "paging/key_predicate.hpp"
#include "rowpump/cursor.hpp"
#include "unit/error_of.hpp"

namespace rowpump::test {

// Bookmark positions are kept only when counted in a later second than the table's last change
// (table_version.hpp), and a change is seen only when it stamps a later second than the one before: waits
// for the server's clock to pass the table's UPDATE_TIME.
inline void wait_for_a_second_after_the_last_change(TestTables& tables, const std::string& table) {
    for (int polls = 0; polls < 100; ++polls) {
        const auto rows = tables.rows(
            "SELECT UNIX_TIMESTAMP() > UNIX_TIMESTAMP(UPDATE_TIME) FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", {table});
        if (!rows.empty() && rows[0][0] && *rows[0][0] == "1") return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL() << "the server's clock did not pass the table's UPDATE_TIME in 5 s (is it NULL?)";
}

class CursorTest : public MySqlTest {
protected:
    static constexpr int item_rows = 2000;

    std::optional<SourceTable> source_table() const override {
        return SourceTable{"cursor_items",
                           "(id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, "
                           "shop INT NOT NULL, title VARCHAR(40), KEY by_created (created_at), "
                           "KEY mixed (created_at, id DESC), KEY by_shop (shop, created_at))",
                           "INSERT INTO {t} (created_at, shop, title) SELECT '2024-01-01' + INTERVAL (seq * 7919 % 211) "
                           "MINUTE, seq % 3, CONCAT('item ', seq) FROM seq_1_to_" + std::to_string(item_rows)};
    }
    void SetUp() override {
        MySqlTest::SetUp();
        tables().rows("ANALYZE TABLE `" + table_ + "`");
    }
    // The table as SetUp left it (TRUNCATE restarts the ids at 1).
    void refill() {
        tables().execute(table_, "TRUNCATE TABLE {t}");
        tables().execute(table_, source_table()->rows_sql);
    }

    static std::string key() { return std::string(32, 'k'); }

    Cursor make_cursor(const std::string& sort, std::vector<std::pair<std::string, std::string>> equals = {},
                       CursorKeys keys = CursorKeys{key(), ""}) {
        return Cursor(options(), CursorSpec{table_, parse_sort(sort), {}, std::move(equals)}, std::move(keys));
    }

    static std::vector<std::string> ids(const CursorPage& page) {
        std::vector<std::string> out;
        for (std::size_t r = 0; r < page.rows.row_count(); ++r) out.emplace_back(*page.rows.value(r, 0));
        return out;
    }
    static std::vector<std::string> flatten(const std::vector<CursorPage>& pages) {
        std::vector<std::string> out;
        for (const auto& page : pages)
            for (auto& id : ids(page)) out.push_back(std::move(id));
        return out;
    }

    // Every page from the first, following end cursors (at most one page per row, so a loop fails).
    std::vector<CursorPage> walk_forward(Cursor& cursor, std::size_t size) {
        std::vector<CursorPage> pages{cursor.page(PageRequest::first(size))};
        while (pages.back().has_next_page && pages.size() <= item_rows)
            pages.push_back(cursor.page(PageRequest::after(pages.back().end_cursor, size)));
        return pages;
    }
    // Every page from the last, following start cursors; in the order read (last page first).
    std::vector<CursorPage> walk_backward(Cursor& cursor, std::size_t size) {
        std::vector<CursorPage> pages{cursor.page(PageRequest::last(size))};
        while (pages.back().has_previous_page && pages.size() <= item_rows)
            pages.push_back(cursor.page(PageRequest::before(pages.back().start_cursor, size)));
        return pages;
    }

    std::vector<std::string> expected_ids(const std::string& sort, const std::string& where = "TRUE") {
        std::vector<std::string> out;
        for (const auto& row : tables().rows("SELECT CAST(id AS CHAR) FROM `" + table_ + "` WHERE " + where + " ORDER BY " + sort))
            out.push_back(*row[0]);
        return out;
    }

    // EXPLAIN of `statement` with its values: every table it reads goes through an index (a derived
    // table is the jump's inner query, itself explained on its own row).
    void expect_index(const SqlFragment& statement, const std::string& label) {
        const auto rows = tables().rows("EXPLAIN " + statement.sql, statement.params);
        ASSERT_FALSE(rows.empty());
        for (const auto& row : rows) {
            // EXPLAIN's columns: id, select_type, table, type, possible_keys, key, ...
            if (row[2].value_or("").starts_with("<derived")) continue;
            EXPECT_NE(row[3].value_or("NULL"), "ALL") << label << ": " << statement.sql;
            EXPECT_NE(row[5].value_or("NULL"), "NULL") << label << ": " << statement.sql;
        }
    }
};

}  // namespace rowpump::test
