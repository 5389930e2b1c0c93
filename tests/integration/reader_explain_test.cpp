// The keyset page after the first one must be served by a range scan on the key's index (docs/DESIGN.md,
// "Paging"): EXPLAIN the reader's own SQL, with the values it binds, and check `type` and `key`. Page
// queries name that index (FORCE INDEX), and `explain` shows both phases of id-in.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "rowpump/reader.hpp"
#include "run/explain_job.hpp"
#include "run/job_plan.hpp"

namespace rowpump::test {
namespace {

class ReaderExplainTest : public MySqlTest {
protected:
    struct Explained {
        std::string type;
        std::string key;
    };

    // Reads one page of `table` by `key`, then EXPLAINs the next page's SQL with the values the reader binds:
    // key > last  expands to one value for a single column and to a, a, a, b for (a, b); the LIMIT is last.
    Explained explain_second_page(const std::string& table, const std::vector<std::string>& key) {
        ReadSpec spec;
        spec.table = table;
        spec.key = key;
        spec.page_size = 100;
        auto plan = std::make_shared<const ReadPlan>(plan_read(options(), spec));
        PageReader reader(options(), plan);
        EXPECT_TRUE(reader.next_page().has_value());
        EXPECT_TRUE(reader.position().has_value());
        if (!reader.position()) return {};
        const KeyValue& last = *reader.position();
        std::vector<mysql::Param> params;
        if (last.size() == 1) {
            params.push_back(last[0]);
        } else {
            EXPECT_EQ(last.size(), 2u);
            params = {last[0], last[0], last[0], last[1]};
        }
        params.push_back(static_cast<std::int64_t>(reader.page_size()));
        const std::string sql = reader.next_page_sql();
        EXPECT_EQ(sql.find("OFFSET"), std::string::npos) << sql;
        const auto rows = tables().rows("EXPLAIN " + sql, params);
        EXPECT_EQ(rows.size(), 1u) << sql;
        if (rows.empty()) return {};
        // EXPLAIN's columns: id, select_type, table, type, possible_keys, key, ...
        return {rows[0][3].value_or("NULL"), rows[0][5].value_or("NULL")};
    }

    std::string fill(const std::string& base, const std::string& definition, const std::string& insert) {
        const auto table = tables().create(base, definition);
        tables().execute(table, insert);
        // Prepared, not execute_text(): ANALYZE returns rows, which execute_text() would leave unread.
        tables().rows("ANALYZE TABLE " + mysql::quote_identifier(table));
        return table;
    }
};

// A table whose second page, by `key` (empty: the primary key), must be a range read on `index`.
struct RangeCase {
    const char* name;
    const char* base;
    const char* definition;
    const char* insert;
    std::vector<std::string> key;
    const char* index;
};

void PrintTo(const RangeCase& range_case, std::ostream* out) { *out << range_case.name; }

const std::vector<RangeCase> range_cases{
    {"SingleColumnPrimaryKey", "explain_pk", "(id BIGINT PRIMARY KEY, v VARCHAR(40))",
     "INSERT INTO {t} SELECT seq, SHA1(seq) FROM seq_1_to_20000", {}, "PRIMARY"},
    {"CompositePrimaryKey", "explain_composite", "(a INT, b VARCHAR(20), v INT, PRIMARY KEY (a, b))",
     "INSERT INTO {t} SELECT seq DIV 150, CONCAT('b', seq), seq FROM seq_1_to_20000", {}, "PRIMARY"},
    {"UniqueIndexKey", "explain_unique", "(id INT PRIMARY KEY, code CHAR(40) NOT NULL, v INT, UNIQUE KEY uk_code (code))",
     "INSERT INTO {t} SELECT seq, SHA1(seq), seq FROM seq_1_to_20000", {"code"}, "uk_code"},
    {"CompositeUniqueIndexKey", "explain_unique2",
     "(id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20) NOT NULL, v INT, UNIQUE KEY uk_ab (a, b))",
     "INSERT INTO {t} SELECT seq, seq DIV 150, CONCAT('b', seq), seq FROM seq_1_to_20000", {"a", "b"}, "uk_ab"},
};

class KeysetRangeTest : public ReaderExplainTest, public ::testing::WithParamInterface<RangeCase> {};

TEST_P(KeysetRangeTest, TheSecondPageIsARangeOnTheKeysIndex) {
    const RangeCase& range_case = GetParam();
    const auto table = fill(range_case.base, range_case.definition, range_case.insert);
    const auto explained = explain_second_page(table, range_case.key);
    EXPECT_EQ(explained.type, "range");
    EXPECT_EQ(explained.key, range_case.index);
}

std::string range_case_name(const ::testing::TestParamInfo<RangeCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Keys, KeysetRangeTest, ::testing::ValuesIn(range_cases), range_case_name);

// An employees-style dept_emp: the IN list of composite keys that id-in's phase 2 sends once made the
// optimizer weigh the secondary index on dept_no, at 0.25 s a page against 0.004 s by the primary key.
TEST_F(ReaderExplainTest, IdInOnACompositeKeyReadsBothPhasesThroughThePagingIndex) {
    const auto table = fill("explain_dept_emp",
                            "(emp_no INT NOT NULL, dept_no CHAR(4) NOT NULL, v INT, PRIMARY KEY (emp_no, dept_no), "
                            "KEY dept_no (dept_no))",
                            "INSERT INTO {t} SELECT seq, CONCAT('d', LPAD(seq % 9, 3, '0')), seq FROM seq_1_to_20000");
    JobSpec spec;
    spec.mysql = options();
    spec.read.table = table;
    spec.read.strategy = PagingStrategy::id_in;
    spec.read.page_size = 1000;
    spec.partitions = 1;
    spec.workers = 1;
    const auto explanation = explain_job(spec);
    ASSERT_EQ(explanation.ranges.size(), 1u);
    const auto& queries = explanation.ranges[0].queries;
    ASSERT_EQ(queries.size(), 2u) << "explain shows phase 1 and phase 2";
    EXPECT_NE(queries[1].label.find("phase 2"), std::string::npos) << queries[1].label;
    for (const auto& query : queries) {
        EXPECT_NE(query.sql.find("FORCE INDEX (`PRIMARY`)"), std::string::npos) << query.sql;
        const auto& columns = query.explain.columns;
        const auto key = std::find(columns.begin(), columns.end(), "key") - columns.begin();
        ASSERT_LT(static_cast<std::size_t>(key), columns.size());
        ASSERT_FALSE(query.explain.rows.empty());
        EXPECT_EQ(query.explain.rows[0][static_cast<std::size_t>(key)], "PRIMARY") << query.label << ": " << query.sql;
    }
}

TEST_F(ReaderExplainTest, ANonUniqueKeyIsPagedThroughItsIndexThatThePrimaryKeyCompletes) {
    const auto table = fill("explain_nonunique", "(id INT PRIMARY KEY, grp INT NOT NULL, v INT, KEY by_grp (grp))",
                            "INSERT INTO {t} SELECT seq, seq % 7, seq FROM seq_1_to_2000");
    ReadSpec spec;
    spec.table = table;
    spec.key = {"grp"};
    const auto plan = plan_read(options(), spec);
    EXPECT_EQ(plan.key.index, "by_grp");
    const auto explained = explain_second_page(table, {"grp"});
    EXPECT_EQ(explained.key, "by_grp");
}

// With a rate, the run's pages hold a quarter of a second of rows: explain binds the LIMIT the run sends
// (it used to show the page size without the rate's cap).
TEST_F(ReaderExplainTest, TheFirstPageHasThePageSizeTheRunUsesUnderARate) {
    const auto table = fill("explain_rate", "(id INT PRIMARY KEY, v INT)",
                            "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_1000");
    JobSpec spec;
    spec.mysql = options();
    spec.read.table = table;
    spec.rate = 800;
    spec.partitions = 1;
    spec.workers = 1;
    const auto explanation = explain_job(spec);
    ASSERT_EQ(explanation.ranges.size(), 1u);
    const auto& queries = explanation.ranges[0].queries;
    ASSERT_EQ(queries.size(), 1u);
    ASSERT_FALSE(queries[0].params.empty());
    EXPECT_EQ(queries[0].params.back(), "200") << queries[0].sql;
    const PageReader reader(spec.mysql, std::make_shared<const ReadPlan>(plan_job_read(spec)),
                            explanation.ranges[0].partition.range);
    EXPECT_EQ(reader.page_size(), 200u);
    EXPECT_EQ(reader.next_page_sql(), queries[0].sql);
}

}  // namespace
}  // namespace rowpump::test
