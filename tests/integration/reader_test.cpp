// PageReader against a real MariaDB: for every strategy and a few page sizes, reading a table page by page
// must give exactly the rows of  SELECT cols FROM t ORDER BY key  run directly, for every key type whose
// order only the server knows (collations, signedness, fractional seconds, bytes).
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "rowpump/error.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::test {
namespace {

struct ReadParams {
    PagingStrategy strategy;
    std::size_t page_size;
};

void PrintTo(const ReadParams& params, std::ostream* out) {
    *out << to_string(params.strategy) << ", page size " << params.page_size;
}

std::string param_name(const ::testing::TestParamInfo<ReadParams>& info) {
    std::string name = to_string(info.param.strategy);
    for (char& c : name)
        if (c == '-') c = '_';
    return name + "_page" + std::to_string(info.param.page_size);
}

// The reference a reader's output must equal: the table's rows in `order_by` order, filtered by
// `condition` (with its bound values) when given.
struct Reference {
    std::string order_by;
    std::string condition;
    std::vector<mysql::Param> params;
};

class ReaderFixture : public MySqlTest {
protected:
    virtual ReadParams read_params() const = 0;

    ReadSpec spec(const std::string& table) const {
        ReadSpec spec;
        spec.table = table;
        spec.strategy = read_params().strategy;
        spec.page_size = read_params().page_size;
        return spec;
    }

    std::shared_ptr<const ReadPlan> plan(const ReadSpec& spec) {
        return std::make_shared<const ReadPlan>(plan_read(options(), spec));
    }

    std::vector<std::string> table_columns(const std::string& table) {
        std::vector<std::string> names;
        for (const auto& row : tables().rows("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                                             "DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
                                             {table}))
            names.push_back(*row[0]);
        return names;
    }

    std::vector<Row> reference_rows(const std::string& table, const std::vector<std::string>& columns,
                                    const Reference& reference) {
        std::string sql = "SELECT " + tables().text_select_list(table, columns) + " FROM " +
                          mysql::quote_identifier(table);
        if (!reference.condition.empty()) sql += " WHERE " + reference.condition;
        return tables().rows(sql + " ORDER BY " + reference.order_by, reference.params);
    }

    // Reads `spec` whole (or `range` of it) and expects the reference's rows, for the plan's columns,
    // which must be `columns` (every column of the table, in table order, when empty).
    void expect_reads_reference(const ReadSpec& spec, const Reference& reference, std::vector<std::string> columns = {},
                                KeyRange range = {}) {
        if (columns.empty()) columns = table_columns(spec.table);
        auto read_plan = plan(spec);
        std::vector<std::string> planned;
        for (const auto& column : read_plan->columns) planned.push_back(column.name);
        ASSERT_EQ(planned, columns);
        const auto expected = reference_rows(spec.table, columns, reference);
        const auto actual = read_all(options(), read_plan, tables().binary_columns(spec.table), std::move(range));
        EXPECT_TRUE(actual == expected) << first_difference(actual, expected);
    }

    void expect_reads_table(const std::string& table, const std::string& order_by, std::vector<std::string> key = {}) {
        ReadSpec read = spec(table);
        read.key = std::move(key);
        expect_reads_reference(read, {order_by, "", {}});
    }
};

class ReaderTest : public ReaderFixture, public ::testing::WithParamInterface<ReadParams> {
protected:
    ReadParams read_params() const override { return GetParam(); }
};

TEST_P(ReaderTest, EmptyTable) {
    const auto table = tables().create("empty", "(id BIGINT PRIMARY KEY, v VARCHAR(10))");
    expect_reads_table(table, "id");
    EXPECT_EQ(tables().count(table), 0u);
}













TEST_P(ReaderTest, DecimalKeyLongerThan64Characters) {
    const auto table = tables().create("long_decimal_key", "(k DECIMAL(65,30) PRIMARY KEY, v INT)");
    tables().execute(table, "INSERT INTO {t} SELECT 12345678901234567890123456789012345.123456789012345678901234567890 "
                            "- seq * 0.000000000000000000000000000007, seq FROM seq_1_to_40");
    tables().execute(table, "INSERT INTO {t} SELECT "
                            "-12345678901234567890123456789012345.123456789012345678901234567890 + seq, seq "
                            "FROM seq_1_to_40");
    ReadSpec read = spec(table);
    auto read_plan = plan(read);
    const auto expected = reference_rows(table, {"k", "v"}, {"k", "", {}});
    // A key cut short could send the reader back to rows it already read: stop well past the row count.
    const auto actual = read_all(options(), read_plan, tables().binary_columns(table), {}, 3 * expected.size());
    EXPECT_TRUE(actual == expected) << first_difference(actual, expected);
}



// ENUM sorts by its position in the definition but compares with a text bound by its label: a keyset
// bound would skip rows, so an ENUM key is refused before anything is read.
TEST_P(ReaderTest, EnumKeyIsRefused) {
    const auto table = tables().create("enum_key", "(e ENUM('zeta','alpha','mid') NOT NULL, n INT NOT NULL, v INT, "
                                                   "PRIMARY KEY (e, n))");
    tables().execute(table, "INSERT INTO {t} SELECT 1 + seq % 3, seq, seq FROM seq_1_to_1500");
    ReadSpec read;
    read.table = table;
    read.key = {"e", "n"};
    EXPECT_THROW(plan_read(options(), read), UsageError);
}


TEST_P(ReaderTest, NullableUniqueKeyReadsNullKeysFirst) {
    const auto table = tables().create("nullable", "(id INT PRIMARY KEY, email VARCHAR(40) NULL, v INT, "
                                                   "UNIQUE KEY uk_email (email))");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 5 = 0, NULL, CONCAT('user', 1000 - seq, "
                            "'@example.com')), seq FROM seq_1_to_300");
    ReadSpec read = spec(table);
    read.key = {"email"};
    read.null_keys = NullKeys::read_first;
    EXPECT_EQ(plan(read)->null_key_rows, 60u);
    expect_reads_reference(read, {"email, id", "", {}});
}

TEST_P(ReaderTest, NonUniqueKeyGetsThePrimaryKeyAppended) {
    const auto table = tables().create("non_unique", "(id INT PRIMARY KEY, grp INT NOT NULL, v VARCHAR(10), "
                                                     "KEY k_grp (grp))");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq % 7, CONCAT('v', seq) FROM seq_1_to_400");
    ReadSpec read = spec(table);
    read.key = {"grp"};
    EXPECT_EQ(plan(read)->key.columns, (std::vector<std::string>{"grp", "id"}));
    expect_reads_reference(read, {"grp, id", "", {}});
}

TEST_P(ReaderTest, NonUniqueKeyGetsACompositePrimaryKeyAppended) {
    const auto table = tables().create("non_unique2", "(a INT, b INT, grp VARCHAR(5) NOT NULL, PRIMARY KEY (a, b))");
    tables().execute(table, "INSERT INTO {t} SELECT seq % 10, seq, CHAR(65 + seq % 3) FROM seq_1_to_300");
    ReadSpec read = spec(table);
    read.key = {"grp", "b"};
    // (grp, b) is not unique by any index: a is appended, b is already there.
    EXPECT_EQ(plan(read)->key.columns, (std::vector<std::string>{"grp", "b", "a"}));
    expect_reads_reference(read, {"grp, b, a", "", {}});
}

TEST_P(ReaderTest, WhereFilter) {
    const auto table = tables().create("filter", "(id INT PRIMARY KEY, v INT, s VARCHAR(10))");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq % 10, IF(seq % 4, 'a', 'b') FROM seq_1_to_500");
    ReadSpec read = spec(table);
    read.where = "v < 3 OR s = 'b'";  // an OR: parenthesised, it cannot swallow the key bound
    expect_reads_reference(read, {"id", "(v < 3 OR s = 'b')", {}});
}

TEST_P(ReaderTest, ColumnListInTheGivenOrderWithoutTheKey) {
    const auto table = tables().create("column_list", "(id INT PRIMARY KEY, a VARCHAR(10), b INT, c BLOB)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, CONCAT('a', seq), seq * 2, UNHEX(HEX(seq)) "
                            "FROM seq_1_to_100");
    ReadSpec read = spec(table);
    read.columns = {"c", "a"};
    expect_reads_reference(read, {"id", "", {}}, {"c", "a"});
}

TEST_P(ReaderTest, RangeBoundsOnAnIntegerKey) {
    const auto table = tables().create("range_int", "(id INT PRIMARY KEY, v INT)");
    tables().execute(table, "INSERT INTO {t} SELECT seq * 3, seq FROM seq_1_to_400");
    const ReadSpec read = spec(table);
    const KeyRange range{KeyValue{std::int64_t{30}}, KeyValue{std::int64_t{601}}};
    expect_reads_reference(read, {"id", "id >= ? AND id < ?", {std::int64_t{30}, std::int64_t{601}}}, {}, range);
}

TEST_P(ReaderTest, AdjacentRangesReadEveryRowExactlyOnce) {
    const auto table = tables().create("adjacent", "(id INT PRIMARY KEY, v INT)");
    tables().execute(table, "INSERT INTO {t} SELECT seq * 3, seq FROM seq_1_to_400");
    auto read_plan = plan(spec(table));
    const auto binary = tables().binary_columns(table);
    // Boundaries on a row (30), between rows (601), and past the end (5000).
    const std::vector<std::optional<KeyValue>> bounds{std::nullopt, KeyValue{std::int64_t{30}},
                                                      KeyValue{std::int64_t{601}}, KeyValue{std::int64_t{5000}},
                                                      std::nullopt};
    std::vector<Row> together;
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
        auto part = read_all(options(), read_plan, binary, KeyRange{bounds[i], bounds[i + 1]});
        together.insert(together.end(), part.begin(), part.end());
    }
    const auto expected = tables().rows("SELECT CAST(id AS CHAR), CAST(v AS CHAR) FROM " +
                                        mysql::quote_identifier(table) + " ORDER BY id");
    EXPECT_TRUE(together == expected) << first_difference(together, expected);
}

TEST_P(ReaderTest, AdjacentRangesOnACompositeKeyWithNullKeysFirst) {
    const auto table = tables().create("adjacent2", "(id INT PRIMARY KEY, a INT NULL, b VARCHAR(10) NOT NULL, "
                                                    "UNIQUE KEY uk_ab (a, b))");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 11 = 0, NULL, seq % 9), CONCAT('b', seq) "
                            "FROM seq_1_to_300");
    ReadSpec read = spec(table);
    read.key = {"a", "b"};
    read.null_keys = NullKeys::read_first;
    auto read_plan = plan(read);
    ASSERT_EQ(read_plan->key.columns, (std::vector<std::string>{"a", "b"}));
    const auto binary = tables().binary_columns(table);
    const std::vector<std::optional<KeyValue>> bounds{
        std::nullopt, KeyValue{std::int64_t{2}, std::string("b200")}, KeyValue{std::int64_t{2}, std::string("b21")},
        KeyValue{std::int64_t{7}, std::string("")}, std::nullopt};
    std::vector<Row> together;
    for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
        auto part = read_all(options(), read_plan, binary, KeyRange{bounds[i], bounds[i + 1]});
        // The range [(2,'b200'), (2,'b21')) is checked on its own against the server's row comparison.
        if (i == 1) {
            const auto expected = tables().rows(
                "SELECT CAST(id AS CHAR), CAST(a AS CHAR), b FROM " + mysql::quote_identifier(table) +
                    " WHERE (a, b) >= (?, ?) AND (a, b) < (?, ?) ORDER BY a, b",
                {std::int64_t{2}, std::string("b200"), std::int64_t{2}, std::string("b21")});
            EXPECT_TRUE(part == expected) << first_difference(part, expected);
        }
        together.insert(together.end(), part.begin(), part.end());
    }
    // Rows with a NULL in the key come first, in primary key order (their own pass), then the rest by key.
    const std::string select = "SELECT CAST(id AS CHAR), CAST(a AS CHAR), b FROM " + mysql::quote_identifier(table);
    auto expected = tables().rows(select + " WHERE a IS NULL ORDER BY id");
    const auto keyed = tables().rows(select + " WHERE a IS NOT NULL ORDER BY a, b");
    expected.insert(expected.end(), keyed.begin(), keyed.end());
    EXPECT_TRUE(together == expected) << first_difference(together, expected);
}

TEST_P(ReaderTest, ResumesStrictlyAfterAGivenKey) {
    const auto table = tables().create("resume", "(a INT, b VARCHAR(10), PRIMARY KEY (a, b))");
    tables().execute(table, "INSERT INTO {t} SELECT seq % 5, CONCAT('b', seq) FROM seq_1_to_200");
    auto read_plan = plan(spec(table));
    const KeyValue resume{std::int64_t{2}, std::string("b157")};
    PageReader reader(options(), read_plan, {}, resume);
    const auto actual = read_all(reader, *read_plan, tables().binary_columns(table));
    const auto expected = tables().rows("SELECT CAST(a AS CHAR), b FROM " + mysql::quote_identifier(table) +
                                            " WHERE (a, b) > (?, ?) ORDER BY a, b",
                                        {std::int64_t{2}, std::string("b157")});
    EXPECT_FALSE(expected.empty());
    EXPECT_TRUE(actual == expected) << first_difference(actual, expected);
}

TEST_P(ReaderTest, LoweredUpperBoundStopsTheReaderAndTheRestIsReadOnce) {
    const auto table = tables().create("steal", "(id INT PRIMARY KEY, v INT)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_300");
    auto read_plan = plan(spec(table));
    const auto binary = tables().binary_columns(table);
    PageReader reader(options(), read_plan);
    auto first = reader.next_page();
    ASSERT_TRUE(first);
    // A thief takes [last + 20, end): the reader keeps what lies below.
    const auto last = std::get<std::int64_t>(first->last_key().at(0));
    const KeyValue split{std::int64_t{last + 20}};
    reader.set_upper_bound(split);
    std::vector<std::string> ids;
    for (std::size_t row = 0; row < first->row_count(); ++row) ids.emplace_back(*first->value(row, 0));
    for (const auto& row : read_all(reader, *read_plan, binary)) ids.push_back(*row[0]);
    for (const auto& row : read_all(options(), read_plan, binary, KeyRange{split, std::nullopt}))
        ids.push_back(*row[0]);
    std::vector<std::string> expected;
    for (int id = 1; id <= 300; ++id) expected.push_back(std::to_string(id));
    EXPECT_EQ(ids, expected);
}

const std::vector<ReadParams> every_strategy{
    {PagingStrategy::keyset, 7},        {PagingStrategy::keyset, 1000}, {PagingStrategy::deferred_join, 7},
    {PagingStrategy::deferred_join, 1000}, {PagingStrategy::id_in, 7},  {PagingStrategy::id_in, 1000},
    {PagingStrategy::offset, 7},        {PagingStrategy::offset, 1000}};

INSTANTIATE_TEST_SUITE_P(Strategies, ReaderTest, ::testing::ValuesIn(every_strategy), param_name);

// A table of one key or column type: read whole, it must give its rows in the order of `order_by`.
struct TableCase {
    const char* name;
    const char* base;  // of the table's name
    const char* definition;
    std::vector<const char*> inserts;  // {t} is the table
    const char* order_by;
};

void PrintTo(const TableCase& table, std::ostream* out) { *out << table.name; }

const std::vector<TableCase> table_cases{
    {"OneRow", "one_row",
     "(id BIGINT PRIMARY KEY, v VARCHAR(10))",
     {"INSERT INTO {t} VALUES (42, 'only')"},
     "id"},
    {"IntegerKeyWithGaps", "gaps",
     "(id INT PRIMARY KEY, v INT NOT NULL)",
     {"INSERT INTO {t} SELECT seq * seq, seq FROM seq_1_to_400",
      "INSERT INTO {t} VALUES (1000000, 1), (2000000000, 2), (2147483647, 3)"},
     "id"},
    {"NegativeKeys", "negative",
     "(id BIGINT PRIMARY KEY, v VARCHAR(20))",
     {"INSERT INTO {t} SELECT CAST(seq AS SIGNED) - 200, CONCAT('v', seq) FROM seq_1_to_400",
      "INSERT INTO {t} VALUES (-9223372036854775808, 'min'), (9223372036854775807, 'max'), "
      "(-1000000000000, 'far')"},
     "id"},
    {"BigintUnsignedKeyOverTheWholeRange", "unsigned",
     "(id BIGINT UNSIGNED PRIMARY KEY, v INT)",
     {"INSERT INTO {t} SELECT seq, seq FROM seq_1_to_100",
      "INSERT INTO {t} SELECT 9223372036854775807 - 50 + seq, seq FROM seq_1_to_100",
      "INSERT INTO {t} SELECT 18446744073709551615 - 100 + seq, seq FROM seq_1_to_100",
      "INSERT INTO {t} VALUES (0, 0)"},
     "id"},
    {"CompositePrimaryKeyIntAndVarchar", "composite",
     "(a INT, b VARCHAR(20), v INT, PRIMARY KEY (a, b))",
     {"INSERT INTO {t} SELECT CAST(seq % 13 AS SIGNED) - 3, CONCAT(IF(seq % 2, 'b', 'B'), seq), "
      "seq FROM seq_1_to_500",
      "INSERT INTO {t} VALUES (0, '', 0), (0, 'zz', 0), (-3, 'é', 0)"},
     "a, b"},
    {"VarcharKeyUnderCaseInsensitiveCollation", "varchar_ci",
     "(k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY, v INT)",
     {"INSERT INTO {t} VALUES ('a', 1), ('B', 2), ('b2', 3), ('é', 4), ('Z', 5), ('', 6), "
      "('ö', 7), ('éa', 8), ('z1', 9), ('中', 10), ('😀', 11), ('ß', 12), (' x', 13)",
      "INSERT INTO {t} SELECT CONCAT(IF(seq % 2, 'k', 'K'), seq, IF(seq % 3, 'é', 'E')), seq "
      "FROM seq_1_to_300"},
     "k"},
    // Keys one microsecond apart: a key that lost its fraction would skip or repeat them.
    {"DatetimeKeyWithFractionalSeconds", "datetime",
     "(k DATETIME(6) PRIMARY KEY, v INT)",
     {"INSERT INTO {t} SELECT '2024-01-01 00:00:00' + INTERVAL seq * 1234567 MICROSECOND, seq "
      "FROM seq_1_to_300",
      "INSERT INTO {t} VALUES ('2030-05-05 05:05:05.000001', 1), "
      "('2030-05-05 05:05:05.000002', 2), ('2030-05-05 05:05:05', 3), "
      "('2030-05-05 05:05:05.999999', 4), ('1000-01-01 00:00:00', 5)"},
     "k"},
    // Keys that one double cannot tell apart: compared as DOUBLE they would be skipped.
    {"DecimalKey", "decimal",
     "(k DECIMAL(20,6) PRIMARY KEY, v INT)",
     {"INSERT INTO {t} SELECT (CAST(seq AS SIGNED) - 150) / 7, seq FROM seq_1_to_300",
      "INSERT INTO {t} VALUES (12345678901234.000001, 1), (12345678901234.000002, 2), "
      "(12345678901234.000003, 3), (-99999999999999.999999, 4)"},
     "k"},
    {"VarbinaryKeyWithZeroAndFfBytes", "varbinary",
     "(k VARBINARY(16) PRIMARY KEY, v INT)",
     {"INSERT INTO {t} VALUES (X'', 1), (X'00', 2), (X'0000', 3), (X'0001', 4), (X'00FF', 5), "
      "(X'7F', 6), (X'80', 7), (X'FF', 8), (X'FF00', 9), (X'FFFF', 10), (X'FFFFFFFF', 11), "
      "('abc', 12), ('ABC', 13), (X'C3A9', 14)",
      "INSERT IGNORE INTO {t} SELECT UNHEX(SUBSTR(SHA1(seq), 1, 8)), seq FROM seq_1_to_300"},
     "k"},
    {"UnicodeTextAndBinaryDataColumns", "data",
     "(id INT PRIMARY KEY, txt TEXT CHARACTER SET utf8mb4, bin BLOB, "
      "vb VARBINARY(8), note VARCHAR(20) NULL)",
     {"INSERT INTO {t} VALUES (1, 'héllo wörld', X'00FF00', X'', NULL), "
      "(2, '中文 😀 emoji', X'', X'FF', 'x'), (3, 'quote \" backslash \\\\ nl\\n tab\\t', NULL, "
      "NULL, ''), (4, '', X'0D0A', X'00', NULL), (5, NULL, X'C328', X'80', 'ü')",
      "INSERT INTO {t} SELECT 100 + seq, CONCAT('ř', seq, '🚀'), UNHEX(SHA2(seq, 256)), "
      "UNHEX(SUBSTR(SHA1(seq), 1, 16)), IF(seq % 3, NULL, 'n') FROM seq_1_to_200"},
     "id"},
    {"ColumnsOfEveryKind", "kinds",
     "(id SMALLINT UNSIGNED PRIMARY KEY, t TINYINT, m MEDIUMINT UNSIGNED, f FLOAT, d DOUBLE, "
      "n DECIMAL(40,20), b BIT(12), y YEAR, dt DATE, tm TIME(3), ts TIMESTAMP(3) NULL, "
      "e ENUM('x','y'), s SET('p','q'), j JSON, c CHAR(3))",
     {"INSERT INTO {t} VALUES (1, -128, 16777215, 1.5, 0.1, "
      "12345678901234567890.12345678901234567890, b'101', 2024, "
      "'2024-02-29', '-838:59:59.000', '2024-01-01 00:00:00.125', 'y', 'p,q', '{\"a\": [1]}', "
      "'ab'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL), (3, 0, 0, -3.25e10, 1e-300, -0.5, b'111111111111', 1901, '1000-01-01', "
      "'00:00:00.001', '1970-01-02 00:00:00', 'x', '', '[]', '')"},
     "id"},
    // DECIMAL(65,30) text is up to 67 characters; the binary protocol's text must not be cut or padded.
    {"DecimalValuesLongerThan64Characters", "long_decimal",
     "(id INT PRIMARY KEY, n DECIMAL(65,30))",
     {"INSERT INTO {t} VALUES "
      "(1, 12345678901234567890123456789012345.123456789012345678901234567890), "
      "(2, -99999999999999999999999999999999999.999999999999999999999999999999), "
      "(3, 1234567890123456789012345678901234.123456789012345678901234567890), "
      "(4, 0.000000000000000000000000000001)"},
     "id"},
    {"TimeKeyWithNegativeAndFractionalValues", "time_key",
     "(k TIME(6) PRIMARY KEY, v INT)",
     {"INSERT INTO {t} SELECT SEC_TO_TIME((CAST(seq AS SIGNED) - 750) * 1997.000001), seq "
      "FROM seq_1_to_1500",
      "INSERT INTO {t} VALUES ('-838:59:59', 1), ('838:59:59', 2), ('00:00:00.000001', 3)"},
     "k"},
    {"TimestampAndYearKeys", "timestamp_key",
     "(ts TIMESTAMP(6) NOT NULL, y YEAR NOT NULL, v INT, "
      "PRIMARY KEY (y, ts))",
     {"INSERT INTO {t} SELECT FROM_UNIXTIME(1700000000 + seq * 3600.5), 1901 + seq % 254, seq "
      "FROM seq_1_to_1500"},
     "y, ts"},
    // BIT is read as its number (CAST AS UNSIGNED); bound back as that number's text it must compare as a number.
    {"BitKey", "bit_key",
     "(b BIT(16) PRIMARY KEY, v INT)",
     {"INSERT INTO {t} SELECT seq * 7, seq FROM seq_1_to_1500"},
     "b"},
};

std::string table_case_name(const ::testing::TestParamInfo<std::tuple<TableCase, ReadParams>>& info) {
    return std::string(std::get<0>(info.param).name) + "_" + param_name({std::get<1>(info.param), info.index});
}

class TableReadTest : public ReaderFixture,
                      public ::testing::WithParamInterface<std::tuple<TableCase, ReadParams>> {
protected:
    ReadParams read_params() const override { return std::get<1>(GetParam()); }
};

TEST_P(TableReadTest, ReadsItsRowsInKeyOrder) {
    const TableCase& table_case = std::get<0>(GetParam());
    const auto table = tables().create(table_case.base, table_case.definition);
    for (const char* insert : table_case.inserts) tables().execute(table, insert);
    expect_reads_table(table, table_case.order_by);
}

INSTANTIATE_TEST_SUITE_P(Strategies, TableReadTest,
                         ::testing::Combine(::testing::ValuesIn(table_cases), ::testing::ValuesIn(every_strategy)),
                         table_case_name);

// 10^5 rows: many pages even at 1000 rows a page.
class LargeTableReaderTest : public ReaderTest {};

TEST_P(LargeTableReaderTest, HundredThousandRows) {
    const auto table = tables().create("large", "(id BIGINT PRIMARY KEY, v VARCHAR(40), n INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq * 2, SHA1(seq), seq % 97 FROM seq_1_to_100000");
    expect_reads_table(table, "id");
}

INSTANTIATE_TEST_SUITE_P(Strategies, LargeTableReaderTest,
                         ::testing::Values(ReadParams{PagingStrategy::keyset, 1000},
                                           ReadParams{PagingStrategy::keyset, 7},
                                           ReadParams{PagingStrategy::deferred_join, 1000},
                                           ReadParams{PagingStrategy::id_in, 1000},
                                           ReadParams{PagingStrategy::offset, 1000}),
                         param_name);

class ReadPlanTest : public MySqlTest {};

TEST_F(ReadPlanTest, NullKeysAreRefusedWithTheirCount) {
    const auto table = tables().create("null_refuse", "(id INT PRIMARY KEY, email VARCHAR(40) NULL UNIQUE)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 7 = 0, NULL, CONCAT('u', seq)) FROM seq_1_to_200");
    ReadSpec read;
    read.table = table;
    read.key = {"email"};
    try {
        plan_read(options(), read);
        ADD_FAILURE() << "plan_read accepted a key with NULLs";
    } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("28 rows"), std::string::npos) << message;
        EXPECT_NE(message.find("email"), std::string::npos) << message;
    }
}

TEST_F(ReadPlanTest, NullKeysOutsideTheFilterAreNotCounted) {
    const auto table = tables().create("null_filtered", "(id INT PRIMARY KEY, email VARCHAR(40) NULL UNIQUE)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 7 = 0, NULL, CONCAT('u', seq)) FROM seq_1_to_200");
    ReadSpec read;
    read.table = table;
    read.key = {"email"};
    read.where = "email IS NOT NULL";
    EXPECT_EQ(plan_read(options(), read).null_key_rows, 0u);
}

TEST_F(ReadPlanTest, DefaultKeyIsTheSmallestUniqueNotNullIndexWithoutAPrimaryKey) {
    const auto table = tables().create("no_pk", "(a INT NOT NULL, b INT NOT NULL, c INT NULL, "
                                                "UNIQUE KEY uk_ab (a, b), UNIQUE KEY uk_b (b), UNIQUE KEY uk_c (c))");
    ReadSpec read;
    read.table = table;
    EXPECT_EQ(plan_read(options(), read).key.columns, std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace rowpump::test
