// A cursor's sort checked against the table, and the text of its statements.
#include "cursor/cursor_sql.hpp"

#include <gtest/gtest.h>

#include "error_of.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;

TableInfo items() {
    return test::table_info("items",
                            {column("id", ColumnKind::signed_integer), column("created_at", ColumnKind::datetime),
                             column("title", ColumnKind::text), column("shop", ColumnKind::signed_integer),
                             column("note", ColumnKind::text, true)},
                            {"id"}, {{"PRIMARY", true, {"id"}}, {"by_created", false, {"created_at"}}});
}

CursorSql statements(CursorSpec spec) {
    const TableInfo table = items();
    return CursorSql(table, spec, check_sort(table, spec.sort));
}

TEST(CursorSort, ParsesDirections) {
    const auto sort = parse_sort(" created_at DESC , id asc,shop");
    ASSERT_EQ(sort.size(), 3u);
    EXPECT_EQ(sort[0].column, "created_at");
    EXPECT_EQ(sort[0].direction, SortDirection::descending);
    EXPECT_EQ(sort[1].direction, SortDirection::ascending);
    EXPECT_EQ(sort[2].column, "shop");
    EXPECT_THROW(parse_sort("id sideways"), UsageError);
    EXPECT_THROW(parse_sort("id,,shop"), UsageError);
}

TEST(CursorSort, RefusesASortThatIsNotUniqueOrAdmitsNull) {
    EXPECT_NE(test::error_of<UsageError>([] { check_sort(items(), parse_sort("created_at DESC")); }).find("is not unique"), std::string::npos);
    EXPECT_NE(test::error_of<UsageError>([] { check_sort(items(), parse_sort("note, id")); }).find("admits NULL"), std::string::npos);
    EXPECT_NE(test::error_of<UsageError>([] { check_sort(items(), parse_sort("id, id")); }).find("twice"), std::string::npos);
    EXPECT_THROW(check_sort(items(), parse_sort("nope, id")), UsageError);
    EXPECT_EQ(check_sort(items(), parse_sort("created_at DESC, id DESC")).columns.size(), 2u);
}

TEST(CursorSql, PagesWalkTheSortOrItsReverse) {
    const auto sql = statements({"items", parse_sort("created_at DESC, id DESC"), {"id", "title"}, {{"shop", "7"}}});
    // created_at is not among the columns: it is added, and the sort positions say where.
    ASSERT_EQ(sql.select_columns().size(), 3u);
    EXPECT_EQ(sql.sort_positions(), (std::vector<std::size_t>{2, 0}));
    const auto first = sql.page(false, std::nullopt, 21);
    EXPECT_EQ(first.sql, "SELECT `id`, `title`, CAST(`created_at` AS CHAR) FROM `db`.`items` WHERE `shop` = ? "
                         "ORDER BY `created_at` DESC, `id` DESC LIMIT ?");
    ASSERT_EQ(first.params.size(), 2u);
    EXPECT_EQ(std::get<std::int64_t>(first.params[0]), 7);  // bound as the column's type
    const KeyValue at{std::string("2024-01-01 00:00:00"), std::int64_t{9}};
    EXPECT_EQ(sql.page(true, at, 21).sql,
              "SELECT `id`, `title`, CAST(`created_at` AS CHAR) FROM `db`.`items` WHERE `shop` = ? AND `created_at` >= ? "
              "AND (`created_at` > ? OR (`created_at` = ? AND (`id` > ?))) ORDER BY `created_at` ASC, `id` ASC LIMIT ?");
    EXPECT_EQ(sql.exists(false, at).sql,
              "SELECT 1 FROM `db`.`items` WHERE `shop` = ? AND `created_at` <= ? AND (`created_at` < ? OR "
              "(`created_at` = ? AND (`id` < ?))) LIMIT 1");
}

TEST(CursorSql, TheJumpCountsThroughTheSortsColumnsOnly) {
    const auto sql = statements({"items", parse_sort("created_at DESC, id DESC"), {}, {}});
    const auto jump = sql.jump(40, 21);
    EXPECT_EQ(jump.sql,
              "SELECT rp_t.`id`, CAST(rp_t.`created_at` AS CHAR), rp_t.`title`, rp_t.`shop`, rp_t.`note` FROM `db`.`items` "
              "AS rp_t JOIN (SELECT `created_at`, `id` FROM `db`.`items` WHERE TRUE ORDER BY `created_at` DESC, `id` DESC "
              "LIMIT ?, ?) AS rp_page ON rp_t.`created_at` = rp_page.`created_at` AND rp_t.`id` = rp_page.`id` "
              "ORDER BY rp_t.`created_at` DESC, rp_t.`id` DESC");
    ASSERT_EQ(jump.params.size(), 2u);
    EXPECT_EQ(std::get<std::int64_t>(jump.params[0]), 40);
}

TEST(CursorSql, TheApproximateJumpWalksFromItsBookmark) {
    const auto sql = statements({"items", parse_sort("created_at DESC, id DESC"), {}, {{"shop", "7"}}});
    const auto jump = sql.jump(15, 21, {"`created_at` < ?", {std::string("2024-01-01 00:00:00")}});
    EXPECT_NE(jump.sql.find("WHERE `shop` = ? AND `created_at` < ? ORDER BY `created_at` DESC"), std::string::npos) << jump.sql;
    ASSERT_EQ(jump.params.size(), 4u);  // the filter's value, the bookmark's, the skip and the limit
    EXPECT_EQ(std::get<std::string>(jump.params[1]), "2024-01-01 00:00:00");
    EXPECT_EQ(std::get<std::int64_t>(jump.params[2]), 15);
    const auto unfiltered = statements({"items", parse_sort("id"), {}, {}}).jump(3, 5, {"`id` >= ?", {std::int64_t{9}}});
    EXPECT_NE(unfiltered.sql.find("WHERE `id` >= ? ORDER BY"), std::string::npos) << unfiltered.sql;
}

TEST(CursorSql, FilterColumnsAreCheckedAndQuoted) {
    EXPECT_THROW(statements({"items", parse_sort("id"), {}, {{"shop`; DROP TABLE items; --", "1"}}}), UsageError);
    const auto sql = statements({"items", parse_sort("id"), {}, {{"title", "x' OR '1'='1"}}});
    const auto page = sql.page(false, std::nullopt, 5);
    EXPECT_EQ(page.sql.find("OR '1'"), std::string::npos);
    EXPECT_EQ(std::get<std::string>(page.params[0]), "x' OR '1'='1");
}

}  // namespace
}  // namespace rowpump
