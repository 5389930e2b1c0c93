#include "paging/key_predicate.hpp"

#include <gtest/gtest.h>

#include "rowpump/error.hpp"

namespace rowpump {
namespace {

Column integer(const std::string& name) { return Column{name, "bigint(20)", ColumnKind::signed_integer, false, 0, 0}; }
Column text(const std::string& name) { return Column{name, "varchar(20)", ColumnKind::text, false, 0, 0}; }

TEST(KeyPredicate, SingleColumnAfterIsOneComparison) {
    auto key = KeyExpression::of({integer("id")});
    auto after = key_after(key, {std::int64_t{42}}, false);
    EXPECT_EQ(after.sql, "`id` > ?");
    ASSERT_EQ(after.params.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(after.params[0]), 42);
    EXPECT_EQ(key_after(key, {std::int64_t{42}}, true).sql, "`id` >= ?");
    EXPECT_EQ(key_before(key, {std::int64_t{42}}).sql, "`id` < ?");
}

TEST(KeyPredicate, CompositeAfterUsesLeadingBoundAndExpandedOr) {
    auto key = KeyExpression::of({integer("a"), text("b")});
    auto after = key_after(key, {std::int64_t{1}, std::string("x")}, false);
    EXPECT_EQ(after.sql, "`a` >= ? AND (`a` > ? OR (`a` = ? AND (`b` > ?)))");
    ASSERT_EQ(after.params.size(), 4u);
    EXPECT_EQ(std::get<std::int64_t>(after.params[2]), 1);
    EXPECT_EQ(std::get<std::string>(after.params[3]), "x");
}

TEST(KeyPredicate, ThreeColumnsNestTwice) {
    auto key = KeyExpression::of({integer("a"), integer("b"), integer("c")});
    KeyValue value{std::int64_t{1}, std::int64_t{2}, std::int64_t{3}};
    auto after = key_after(key, value, true);
    EXPECT_EQ(after.sql, "`a` >= ? AND (`a` > ? OR (`a` = ? AND (`b` > ? OR (`b` = ? AND (`c` >= ?)))))");
    std::vector<std::int64_t> bound;
    for (auto& p : after.params) bound.push_back(std::get<std::int64_t>(p));
    EXPECT_EQ(bound, (std::vector<std::int64_t>{1, 1, 1, 2, 2, 3}));
    auto before = key_before(key, value);
    EXPECT_EQ(before.sql, "`a` <= ? AND (`a` < ? OR (`a` = ? AND (`b` < ? OR (`b` = ? AND (`c` < ?)))))");
}

TEST(KeyPredicate, DecimalValuesAreCastToTheColumnType) {
    Column price{"price", "decimal(12,2)", ColumnKind::decimal, false, 12, 2};
    auto key = KeyExpression::of({price});
    EXPECT_EQ(key_after(key, {std::string("10.50")}, false).sql, "`price` > CAST(? AS DECIMAL(12,2))");
}

TEST(KeyPredicate, QualifiedColumnsAndQuotedNames) {
    auto key = KeyExpression::of({text("we`ird name")}, "rp_t");
    EXPECT_EQ(column_list(key), "rp_t.`we``ird name`");
}

TEST(KeyPredicate, WrongArityIsAnError) {
    auto key = KeyExpression::of({integer("a"), integer("b")});
    EXPECT_THROW(key_after(key, {std::int64_t{1}}, false), UsageError);
}

TEST(KeyPredicate, AndAlsoKeepsPlaceholderOrder) {
    SqlFragment where{"(x = 1)", {}};
    auto key = KeyExpression::of({integer("id")});
    where.and_also(key_after(key, {std::int64_t{5}}, false)).and_also(key_before(key, {std::int64_t{9}}));
    EXPECT_EQ(where.sql, "(x = 1) AND `id` > ? AND `id` < ?");
    ASSERT_EQ(where.params.size(), 2u);
    EXPECT_EQ(std::get<std::int64_t>(where.params[0]), 5);
    EXPECT_EQ(std::get<std::int64_t>(where.params[1]), 9);
}

TEST(KeyPredicate, KeyPartsKeepIntegersExact) {
    Column unsigned_id{"id", "bigint(20) unsigned", ColumnKind::unsigned_integer, false, 0, 0};
    EXPECT_EQ(std::get<std::uint64_t>(key_part_from_text(unsigned_id, "18446744073709551615")),
              18446744073709551615ull);
    EXPECT_EQ(std::get<std::int64_t>(key_part_from_text(integer("id"), "-9223372036854775808")),
              std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(std::get<std::string>(key_part_from_text(text("s"), "abc")), "abc");
}

// The NULL-key predicates, over the key's nullable columns only: the NULL-key pass and its count read
// (a IS NULL OR b IS NULL); planning's key-index queries read a IS NOT NULL AND b IS NOT NULL.
TEST(KeyPredicate, NullKeyPredicatesNameOnlyTheNullableColumns) {
    Column a = integer("a");
    Column b = text("b");
    Column c = integer("c");
    EXPECT_EQ(key_has_null({a, b}), "");
    EXPECT_TRUE(key_has_no_null({a, b}).empty());
    a.nullable = true;
    c.nullable = true;
    EXPECT_EQ(key_has_null({a, b, c}), "(`a` IS NULL OR `c` IS NULL)");
    const SqlFragment no_null = key_has_no_null({a, b, c});
    EXPECT_EQ(no_null.sql, "`a` IS NOT NULL AND `c` IS NOT NULL");
    EXPECT_TRUE(no_null.params.empty());
}

}  // namespace
}  // namespace rowpump
