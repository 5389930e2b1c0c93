#include "paging/page_sql.hpp"

#include <gtest/gtest.h>

#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;

ReadPlan plan_for(std::vector<Column> columns, std::vector<std::string> key, std::string where = "") {
    ReadPlan plan;
    plan.table.schema = "db";
    plan.table.name = "t";
    plan.table.columns = columns;
    plan.table.primary_key = {columns.front().name};
    plan.key.columns = std::move(key);
    plan.columns = std::move(columns);
    plan.spec.where = std::move(where);
    return plan;
}

TEST(PageSql, KeysetFirstPageHasNoBoundAndBindsTheLimit) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("name", ColumnKind::text)}, {"id"});
    PageSql sql(plan);
    auto page = sql.keyset(Pass::main, {}, 500);
    EXPECT_EQ(page.sql, "SELECT `id`, `name` FROM `db`.`t` WHERE TRUE ORDER BY `id` LIMIT ?");
    ASSERT_EQ(page.params.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(page.params[0]), 500);
}

TEST(PageSql, KeysetAfterLastKeyWithFilterAndUpperBound) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer)}, {"id"}, "id % 2 = 0");
    PageSql sql(plan);
    PageBounds bounds{KeyValue{std::int64_t{10}}, false, KeyValue{std::int64_t{20}}};
    auto page = sql.keyset(Pass::main, bounds, 100);
    EXPECT_EQ(page.sql, "SELECT `id` FROM `db`.`t` WHERE (id % 2 = 0) AND `id` > ? AND `id` < ? ORDER BY `id` LIMIT ?");
    EXPECT_EQ(page.params.size(), 3u);
}

TEST(PageSql, HiddenKeyColumnsAreAppendedAfterTheRequestedColumns) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("name", ColumnKind::text)}, {"id"});
    plan.columns = {column("name", ColumnKind::text)};
    PageSql sql(plan);
    ASSERT_EQ(sql.select_columns().size(), 2u);
    EXPECT_EQ(sql.select_columns()[1].name, "id");
    EXPECT_EQ(sql.key_positions(Pass::main), std::vector<std::size_t>{1});
}

TEST(PageSql, TemporalColumnsAreReadAsServerText) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("at", ColumnKind::datetime)}, {"id"});
    PageSql sql(plan);
    EXPECT_NE(sql.keyset(Pass::main, {}, 1).sql.find("CAST(`at` AS CHAR)"), std::string::npos);
}

TEST(PageSql, DeferredJoinPagesKeysInASubqueryAndJoinsBack) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("v", ColumnKind::text)}, {"id"});
    PageSql sql(plan);
    auto page = sql.deferred_join(Pass::main, {KeyValue{std::int64_t{5}}, false, std::nullopt}, 10);
    EXPECT_EQ(page.sql,
              "SELECT rp_t.`id`, rp_t.`v` FROM `db`.`t` AS rp_t JOIN (SELECT `id` FROM `db`.`t` WHERE `id` > ? "
              "ORDER BY `id` LIMIT ?) AS rp_page ON rp_t.`id` = rp_page.`id` ORDER BY rp_t.`id`");
}

TEST(PageSql, IdInSecondPhaseWithAFilterListsEveryKeyTuple) {
    auto plan = plan_for({column("a", ColumnKind::signed_integer), column("b", ColumnKind::text)}, {"a", "b"}, "b <> 'z'");
    PageSql sql(plan);
    auto page = sql.rows_with_keys(Pass::main, {{std::int64_t{1}, std::string("x")}, {std::int64_t{2}, std::string("y")}});
    EXPECT_EQ(page.sql,
              "SELECT `a`, `b` FROM `db`.`t` WHERE (`a`, `b`) IN ((?, ?), (?, ?)) AND (b <> 'z') ORDER BY `a`, `b`");
    EXPECT_EQ(page.params.size(), 4u);
}

// A page of long keys would pass max_allowed_packet in one list: it goes in several, each within the
// limit and in key order, holding every key once.
TEST(PageSql, IdInSecondPhaseSplitsALongKeyListIntoStatementsWithinTheLimit) {
    auto plan = plan_for({column("a", ColumnKind::signed_integer), column("b", ColumnKind::text)}, {"a", "b"}, "b <> 'z'");
    PageSql sql(plan);
    std::vector<KeyValue> keys;
    for (std::int64_t i = 0; i < 10; ++i) keys.push_back({i, std::string(80, static_cast<char>('a' + i))});
    const auto statements = sql.rows_with_keys_in_statements(Pass::main, keys, 300);  // 100 bytes a key
    ASSERT_EQ(statements.size(), 4u);  // 3 + 3 + 3 + 1
    std::vector<mysql::Param> params;
    for (const auto& statement : statements) {
        EXPECT_NE(statement.sql.find(" IN (("), std::string::npos) << statement.sql;
        EXPECT_NE(statement.sql.find("AND (b <> 'z')"), std::string::npos) << statement.sql;
        EXPECT_LE(statement.params.size(), 6u);
        params.insert(params.end(), statement.params.begin(), statement.params.end());
    }
    std::vector<mysql::Param> expected;
    for (const auto& key : keys) expected.insert(expected.end(), key.begin(), key.end());
    EXPECT_EQ(params, expected);
    // One key larger than the limit still goes, alone.
    EXPECT_EQ(sql.rows_with_keys_in_statements(Pass::main, keys, 10).size(), keys.size());
    EXPECT_EQ(sql.rows_with_keys_in_statements(Pass::main, keys).size(), 1u);
}

// Without a filter phase 2 reads the span in one statement whatever the keys: in parts, rows inserted
// between two parts would be skipped.
TEST(PageSql, IdInSecondPhaseWithoutAFilterIsOneStatementHoweverLongItsKeys) {
    auto plan = plan_for({column("a", ColumnKind::signed_integer), column("b", ColumnKind::text)}, {"a", "b"});
    PageSql sql(plan);
    std::vector<KeyValue> keys;
    for (std::int64_t i = 0; i < 10; ++i) keys.push_back({i, std::string(80, 'x')});
    EXPECT_EQ(sql.rows_with_keys_in_statements(Pass::main, keys, 100).size(), 1u);
}

TEST(PageSql, IdInSecondPhaseWithoutAFilterReadsTheSpanOfItsKeysWithoutListingThem) {
    auto plan = plan_for({column("a", ColumnKind::signed_integer), column("b", ColumnKind::text)}, {"a", "b"});
    PageSql sql(plan);
    auto page = sql.rows_with_keys(Pass::main, {{std::int64_t{1}, std::string("x")}, {std::int64_t{2}, std::string("y")}});
    EXPECT_EQ(page.sql,
              "SELECT `a`, `b` FROM `db`.`t` WHERE `a` >= ? AND (`a` > ? OR (`a` = ? AND (`b` >= ?))) AND `a` <= ? "
              "AND (`a` < ? OR (`a` = ? AND (`b` <= ?))) ORDER BY `a`, `b`");
    const std::vector<mysql::Param> expected{std::int64_t{1}, std::int64_t{1}, std::int64_t{1}, std::string("x"),
                                             std::int64_t{2}, std::int64_t{2}, std::int64_t{2}, std::string("y")};
    EXPECT_EQ(page.params, expected);
}

TEST(PageSql, NullableKeyExcludesNullsFromTheMainPassAndReadsThemInTheirOwn) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("u", ColumnKind::text, true)}, {"u"});
    plan.null_key_rows = 3;
    PageSql sql(plan);
    EXPECT_EQ(sql.keyset(Pass::main, {}, 10).sql,
              "SELECT `id`, `u` FROM `db`.`t` WHERE NOT (`u` IS NULL) ORDER BY `u` LIMIT ?");
    EXPECT_EQ(sql.keyset(Pass::null_keys, {}, 10).sql,
              "SELECT `id`, `u` FROM `db`.`t` WHERE (`u` IS NULL) ORDER BY `id` LIMIT ?");
}

TEST(PageSql, OffsetBindsLimitThenOffset) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer)}, {"id"});
    PageSql sql(plan);
    auto page = sql.offset(Pass::main, {}, 100, 5000);
    EXPECT_EQ(page.sql, "SELECT `id` FROM `db`.`t` WHERE TRUE ORDER BY `id` LIMIT ? OFFSET ?");
    EXPECT_EQ(std::get<std::int64_t>(page.params[1]), 5000);
}

TEST(PageSql, ComputedValuesFollowTheColumns) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("due", ColumnKind::datetime)}, {"id"});
    plan.columns = {column("id", ColumnKind::signed_integer)};
    plan.spec.computed = {{"rp_due", "due", "COALESCE(UNIX_TIMESTAMP({}), 0 + {})"}};
    PageSql sql(plan);
    EXPECT_EQ(sql.keyset(Pass::main, {}, 1).sql,
              "SELECT `id`, COALESCE(UNIX_TIMESTAMP(`due`), 0 + `due`) FROM `db`.`t` WHERE TRUE ORDER BY `id` LIMIT ?");
    EXPECT_EQ(sql.key_positions(Pass::main), std::vector<std::size_t>{0});
}

TEST(PageSql, ComputedValuesAreQualifiedInADeferredJoin) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("due", ColumnKind::datetime)}, {"id"});
    plan.columns = {column("id", ColumnKind::signed_integer)};
    plan.spec.computed = {{"rp_due", "due", "UNIX_TIMESTAMP({})"}};
    PageSql sql(plan);
    EXPECT_NE(sql.deferred_join(Pass::main, {}, 1).sql.find("UNIX_TIMESTAMP(rp_t.`due`)"), std::string::npos)
        << sql.deferred_join(Pass::main, {}, 1).sql;
}

TEST(PageSql, EveryQueryThatPagesByTheKeyNamesItsIndex) {
    auto plan = plan_for({column("id", ColumnKind::signed_integer), column("u", ColumnKind::text, true)}, {"u"});
    plan.key.index = "uk_u";
    plan.null_key_rows = 3;
    PageSql sql(plan);
    const std::string forced = "`db`.`t` FORCE INDEX (`uk_u`)";
    EXPECT_NE(sql.keyset(Pass::main, {}, 10).sql.find(forced), std::string::npos);
    EXPECT_NE(sql.deferred_join(Pass::main, {}, 10).sql.find("JOIN (SELECT `u` FROM " + forced), std::string::npos);
    EXPECT_NE(sql.keys_only(Pass::main, {}, 10).sql.find(forced), std::string::npos);
    EXPECT_NE(sql.rows_with_keys(Pass::main, {{std::string("a")}}).sql.find(forced), std::string::npos);
    EXPECT_NE(sql.offset(Pass::main, {}, 10, 5).sql.find(forced), std::string::npos);
    // The NULL-key pass finds its rows by IS NULL and pages them by the primary key: no hint.
    EXPECT_EQ(sql.keyset(Pass::null_keys, {}, 10).sql.find("FORCE INDEX"), std::string::npos);
}

}  // namespace
}  // namespace rowpump

namespace rowpump {
namespace {

ReadPlan nullable_key_plan() {
    return plan_for({column("id", ColumnKind::signed_integer), column("k", ColumnKind::signed_integer, true)}, {"k"});
}

// page() is the one query the reader runs and explain shows for each strategy; the NULL-key pass is keyset.
TEST(PageSql, PageRunsThePlansStrategyAndTheNullPassIsKeyset) {
    auto plan = nullable_key_plan();
    plan.null_key_rows = 1;
    const PageBounds bounds{KeyValue{std::int64_t{3}}, true, KeyValue{std::int64_t{9}}};
    for (const auto strategy :
         {PagingStrategy::keyset, PagingStrategy::deferred_join, PagingStrategy::id_in, PagingStrategy::offset}) {
        plan.spec.strategy = strategy;
        const PageSql sql(plan);
        const SqlFragment expected =
            strategy == PagingStrategy::deferred_join ? sql.deferred_join(Pass::main, bounds, 7)
            : strategy == PagingStrategy::id_in       ? sql.keys_only(Pass::main, bounds, 7)
            : strategy == PagingStrategy::offset      ? sql.offset(Pass::main, bounds, 7, 40)
                                                      : sql.keyset(Pass::main, bounds, 7);
        EXPECT_EQ(sql.page(Pass::main, bounds, 7, 40).sql, expected.sql) << to_string(strategy);
        EXPECT_EQ(sql.page(Pass::null_keys, bounds, 7, 40).sql, sql.keyset(Pass::null_keys, bounds, 7).sql)
            << to_string(strategy);
    }
}

// A range's first pages: the NULL-key pass only in the range that starts at the table's start, and from no key;
// the main pass from the range's own start, inclusive.
TEST(PageSql, FirstPageBoundsAndWhichRangeReadsTheNullKeys) {
    auto plan = nullable_key_plan();
    const KeyRange first{std::nullopt, KeyValue{std::int64_t{9}}};
    const KeyRange second{KeyValue{std::int64_t{9}}, std::nullopt};
    EXPECT_FALSE(has_null_key_pass(plan, first)) << "no NULL-key rows, no pass";
    plan.null_key_rows = 2;
    EXPECT_TRUE(has_null_key_pass(plan, first));
    EXPECT_FALSE(has_null_key_pass(plan, second));
    const PageBounds null_pass = first_page_bounds(Pass::null_keys, first);
    EXPECT_FALSE(null_pass.after);
    EXPECT_EQ(null_pass.before, first.hi);
    const PageBounds main = first_page_bounds(Pass::main, second);
    EXPECT_EQ(main.after, second.lo);
    EXPECT_TRUE(main.after_inclusive);
    EXPECT_FALSE(main.before);
}

}  // namespace
}  // namespace rowpump
