// Which index keeps the paging key in order: page queries name it with FORCE INDEX.
#include <gtest/gtest.h>

#include "rowpump/table.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

TableInfo dept_emp() {
    return test::table_info("dept_emp",
                            {{"emp_no", "int(11)", ColumnKind::signed_integer, false, 0, 0},
                             {"dept_no", "char(4)", ColumnKind::text, false, 0, 0},
                             {"from_date", "date", ColumnKind::date, false, 0, 0},
                             {"note", "varchar(20)", ColumnKind::text, false, 0, 0}},
                            {"emp_no", "dept_no"},
                            {{"PRIMARY", true, {"emp_no", "dept_no"}}, {"dept_no", false, {"dept_no"}},
                             {"by_date", false, {"from_date", "dept_no"}}});
}

TEST(PagingKeyIndex, ThePrimaryKeyIsPagedThroughPrimary) {
    EXPECT_EQ(choose_paging_key(dept_emp(), {}).index, "PRIMARY");
}

TEST(PagingKeyIndex, ASecondaryIndexIsUsedWhenThePrimaryKeyCompletesItInOrder) {
    // (dept_no) + the primary key's other column: the order InnoDB keeps in the index on dept_no.
    const auto key = choose_paging_key(dept_emp(), {"dept_no"});
    EXPECT_EQ(key.columns, (std::vector<std::string>{"dept_no", "emp_no"}));
    EXPECT_EQ(key.index, "dept_no");
    // (from_date, dept_no) + emp_no: by_date carries emp_no after its own columns.
    EXPECT_EQ(choose_paging_key(dept_emp(), {"from_date", "dept_no"}).index, "by_date");
}

TEST(PagingKeyIndex, NoIndexIsNamedWhenNoneKeepsTheKeysOrder) {
    // `note` has no index: nothing to force, the optimizer decides.
    EXPECT_EQ(choose_paging_key(dept_emp(), {"note"}).index, "");
    // The primary key's columns in another order than the index keeps them.
    EXPECT_EQ(choose_paging_key(dept_emp(), {"dept_no", "emp_no"}).index, "dept_no");
    EXPECT_EQ(choose_paging_key(dept_emp(), {"from_date", "emp_no", "dept_no"}).index, "");
}

}  // namespace
}  // namespace rowpump
