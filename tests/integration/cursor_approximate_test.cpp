// The approximate jump (Cursor::jump_approximate) on a table of 300,000 rows whose created_at is skewed
// (quadratic: most rows early in the span): where each page lands, measured by a COUNT of the rows before
// its first row, against where it was asked to land, for three sorts; its rows are the list's rows from
// there; next and previous go on from it; with a filter it is the exact jump and says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "integration/mysql_fixture.hpp"
#include "rowpump/cursor.hpp"

namespace rowpump::test {
namespace {

constexpr int table_rows = 300'000;
constexpr std::size_t page_size = 20;
// The stated tolerance: a landing within 1% of the table's rows of the position asked for.
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

TEST_F(CursorApproximateTest, LandsWithinOnePercentOfTheTableOfThePositionAsked) {
    struct Sort {
        std::string text;
        std::string created;  // the direction of created_at, "" when the sort is id alone
        std::string id;
    };
    for (const Sort& sort : {Sort{"created_at DESC, id DESC", "DESC", "DESC"}, Sort{"created_at ASC, id DESC", "ASC", "DESC"},
                             Sort{"id ASC", "", "ASC"}}) {
        Cursor cursor = make_cursor(sort.text);
        double worst = 0;
        for (const std::uint64_t page : {2u, 1'000u, 5'000u, 7'500u, 11'000u, 14'900u}) {
            const CursorPage landed = cursor.jump_approximate(page, page_size);
            ASSERT_EQ(landed.method, PageMethod::approximate_jump) << sort.text;
            ASSERT_EQ(landed.rows.row_count(), page_size) << sort.text << " page " << page;
            EXPECT_EQ(landed.page_number, page);
            EXPECT_NEAR(static_cast<double>(landed.total_rows_estimate), table_rows, table_rows * 0.05) << sort.text;
            const std::uint64_t asked = (page - 1) * page_size;
            const std::uint64_t at = position_of(first_row(landed), sort.created, sort.id);
            const double off = std::fabs(static_cast<double>(at) - static_cast<double>(asked)) / table_rows;
            worst = std::max(worst, off);
            EXPECT_LE(off, tolerance) << sort.text << ": page " << page << " asked row " << asked << ", landed on row " << at;
            // The rows are the list's own from where it landed.
            EXPECT_EQ(ids(landed), list_ids(sort.text, at, page_size)) << sort.text << " page " << page;
            EXPECT_EQ(landed.has_previous_page, at > 0);
            EXPECT_TRUE(landed.has_next_page);
        }
        std::printf("%s: the worst landing was %.3f%% of the table from the row asked\n", sort.text.c_str(), worst * 100);
    }
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
