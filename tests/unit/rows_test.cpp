// rowpump's own result type for control-plane queries: a cursor over copied cells, with the conversions
// the callers need and a clear error, never a wrong number, when a cell is not what they expect.
#include <gtest/gtest.h>

#include "mysql/rows.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {
namespace {

Rows sample() {
    return Rows({"id", "name", "ratio"},
                {{std::string("18446744073709551615"), std::string("a\0b", 3), std::string("12.5")},
                 {std::string("-9223372036854775808"), std::nullopt, std::nullopt}});
}

TEST(RowsTest, StandsBeforeItsFirstRowAndVisitsEachOnce) {
    Rows rows = sample();
    EXPECT_EQ(rows.size(), 2u);
    EXPECT_THROW(rows.text(1), DbError);  // no current row yet
    ASSERT_TRUE(rows.next());
    EXPECT_EQ(rows.uint64(1), 18446744073709551615u);
    EXPECT_EQ(rows.text(2), std::string("a\0b", 3));
    EXPECT_DOUBLE_EQ(rows.real(3), 12.5);
    ASSERT_TRUE(rows.next());
    EXPECT_EQ(rows.int64(1), INT64_MIN);
    EXPECT_FALSE(rows.next());
    EXPECT_FALSE(rows.next());
    EXPECT_THROW(rows.text(1), DbError);
}

TEST(RowsTest, NullReadsAsEmptyAndZero) {
    Rows rows = sample();
    rows.next();
    rows.next();
    EXPECT_TRUE(rows.is_null(2));
    EXPECT_FALSE(rows.is_null(1));
    EXPECT_EQ(rows.text(2), "");
    EXPECT_EQ(rows.uint64(3), 0u);
    EXPECT_EQ(rows.real(3), 0.0);
}

TEST(RowsTest, ACellThatIsNotANumberInRangeIsAnErrorNotAGuess) {
    Rows rows = sample();
    rows.next();
    EXPECT_THROW(rows.int64(1), DbError);   // above INT64_MAX
    EXPECT_THROW(rows.uint32(1), DbError);  // above UINT32_MAX
    EXPECT_THROW(rows.int64(2), DbError);   // text
    EXPECT_THROW(rows.int64(3), DbError);   // "12.5" is not whole
    EXPECT_THROW(rows.real(2), DbError);
    rows.next();
    EXPECT_THROW(rows.uint64(1), DbError);  // negative
}

TEST(RowsTest, ColumnsAreNumberedFromOneAndFoundByLabel) {
    Rows rows = sample();
    EXPECT_EQ(rows.column_count(), 3u);
    EXPECT_EQ(rows.label(1), "id");
    EXPECT_EQ(rows.column("ratio"), 3u);
    EXPECT_THROW(rows.column("missing"), DbError);
    EXPECT_THROW(rows.label(0), DbError);
    EXPECT_THROW(rows.label(4), DbError);
    rows.next();
    EXPECT_THROW(rows.text(4), DbError);
}

}  // namespace
}  // namespace rowpump::mysql
