// One table with a column of every MySQL type family, read end to end through the streaming text-protocol
// path: by PageReader for each strategy, and by `rowpump read` as JSON and CSV. Every expected value is
// computed by the server from the stored value (DATE_FORMAT, CONV(HEX()), TO_BASE64, HEX of the bytes),
// never taken from rowpump's own output. The values cover each family's extremes, zero dates, negative
// TIME, 4-byte characters, NUL and 0xFF bytes, empty strings next to NULLs, and enough rows at a small
// page size that many page boundaries are crossed.
#include <gtest/gtest.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::test {
namespace {

enum class JsonType { number, string };

// One column. The expressions are SQL over the column, written "{c}"; each yields a string.
struct Family {
    std::string name;
    std::string type;
    std::string generated;  // the value of row `seq` (rows with seq % 17 = 0 get NULL instead)
    std::string text;       // the bytes the reader must deliver
    JsonType json;
    std::string json_text;  // the JSON value: a number's text, or a string's bytes
    std::string csv_text;   // the CSV field
};

const std::string integer = "CAST({c} AS CHAR)";
const std::string bit_number = "CONV(HEX({c}), 16, 10)";
const std::string date_text = "DATE_FORMAT({c}, '%Y-%m-%d')";
const std::string time_text = "TIME_FORMAT({c}, '%H:%i:%s.%f')";
const std::string datetime_text = "DATE_FORMAT({c}, '%Y-%m-%d %H:%i:%s.%f')";
// ISO-8601 with a 'T', except zero dates, which no ISO date can stand for: they keep the server's text.
const std::string datetime_iso =
    "IF(LEFT({c}, 10) = '0000-00-00', " + datetime_text + ", DATE_FORMAT({c}, '%Y-%m-%dT%H:%i:%s.%f'))";
// A TIMESTAMP is an instant, read in the session's zone, which rowpump sets to UTC: it ends in 'Z'.
const std::string timestamp_iso =
    "IF(LEFT({c}, 10) = '0000-00-00', " + datetime_text + ", DATE_FORMAT({c}, '%Y-%m-%dT%H:%i:%s.%fZ'))";
const std::string base64 = "REPLACE(TO_BASE64({c}), '\\n', '')";

Family number_family(const std::string& name, const std::string& type, const std::string& generated,
              const std::string& text = integer) {
    return {name, type, generated, text, JsonType::number, text, text};
}
Family text_family(const std::string& name, const std::string& type, const std::string& generated) {
    return {name, type, generated, "{c}", JsonType::string, "{c}", "{c}"};
}
Family bytes_family(const std::string& name, const std::string& type, const std::string& generated) {
    return {name, type, generated, "{c}", JsonType::string, base64, base64};
}

const std::vector<Family>& families() {
    static const std::vector<Family> all{
        number_family("ti", "TINYINT", "CAST(seq % 256 AS SIGNED) - 128"),
        number_family("tiu", "TINYINT UNSIGNED", "seq % 256"),
        number_family("si", "SMALLINT", "CAST(seq * 37 % 65536 AS SIGNED) - 32768"),
        number_family("siu", "SMALLINT UNSIGNED", "seq * 37 % 65536"),
        number_family("mi", "MEDIUMINT", "CAST(seq * 7919 % 16777216 AS SIGNED) - 8388608"),
        number_family("miu", "MEDIUMINT UNSIGNED", "seq * 7919 % 16777216"),
        number_family("i", "INT", "CAST(seq * 2654435761 % 4294967296 AS SIGNED) - 2147483648"),
        number_family("iu", "INT UNSIGNED", "seq * 2654435761 % 4294967296"),
        number_family("bi", "BIGINT", "CONV(SUBSTR(SHA1(seq), 1, 16), 16, -10)"),
        number_family("biu", "BIGINT UNSIGNED", "CONV(SUBSTR(SHA1(seq), 1, 16), 16, 10)"),
        number_family("dcm", "DECIMAL(65,30)",
                      "CONCAT(IF(seq % 2, '-', ''), RPAD(seq, 35, '7'), '.', LPAD(seq, 30, '0'))"),
        number_family("f", "FLOAT", "(CAST(seq AS SIGNED) - 1500) / 7 * POW(10, CAST(seq % 60 AS SIGNED) - 30)"),
        number_family("d", "DOUBLE", "SIN(seq) * POW(10, CAST(seq % 600 AS SIGNED) - 300)"),
        number_family("b1", "BIT(1)", "seq % 2", bit_number),
        number_family("b64", "BIT(64)", "CAST(CONV(SUBSTR(SHA1(seq), 1, 16), 16, 10) AS UNSIGNED)", bit_number),
        // YEAR's JSON is its number: 0000 is 0.
        {"y", "YEAR", "1901 + seq % 255", integer, JsonType::number, "CAST({c} + 0 AS CHAR)", integer},
        {"dt", "DATE", "'1000-01-01' + INTERVAL seq * 97 DAY", date_text, JsonType::string, date_text, date_text},
        {"tm", "TIME(6)", "SEC_TO_TIME((CAST(seq AS SIGNED) - 1500) * 1000.123457)", time_text, JsonType::string,
         time_text, time_text},
        {"dtm", "DATETIME(6)", "'1000-01-01 00:00:00' + INTERVAL seq * 1234567890123 MICROSECOND", datetime_text,
         JsonType::string, datetime_iso, datetime_text},
        {"ts", "TIMESTAMP(6) NULL", "FROM_UNIXTIME(1 + seq * 654321.123456)", datetime_text, JsonType::string,
         timestamp_iso, datetime_text},
        text_family("c", "CHAR(10)", "CONCAT('c', seq % 100, IF(seq % 3 = 0, 'é😀', ''))"),
        text_family("vc", "VARCHAR(100)", "CONCAT('ř', seq, '🚀 \\t\"\\\\', IF(seq % 5 = 0, '', ' tail '))"),
        text_family("tx", "TEXT", "REPEAT(CONCAT('中文', seq, '\\n'), seq % 20)"),
        bytes_family("bn", "BINARY(4)", "IF(seq % 7 = 0, X'FF', UNHEX(LPAD(HEX(seq), 8, '0')))"),
        bytes_family("vb", "VARBINARY(16)", "UNHEX(SUBSTR(SHA1(seq), 1, 2 * (seq % 9)))"),
        bytes_family("bl", "BLOB", "CONCAT(UNHEX(SHA2(seq, 256)), X'00FF00')"),
        text_family("e", "ENUM('alpha','béta','😀')", "1 + seq % 3"),
        text_family("s", "SET('x','y','z')", "seq % 8"),
        text_family("j", "JSON", "JSON_OBJECT('n', seq, 's', CONCAT('é\"', seq), 'a', JSON_ARRAY(seq, NULL, TRUE))"),
        // The server's internal value (a 4-byte SRID, then WKB), binary like a BLOB.
        bytes_family("g", "GEOMETRY", "POINT(seq, CAST(seq AS SIGNED) / -3)"),
    };
    return all;
}

// Rows beyond the generated ones, in family order (id first): each family's extremes, zero dates,
// partly zero dates, awkward bytes and characters, empty values, and NULL everywhere.
const std::vector<std::string> special_rows{
    "(100001, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, "
    "18446744073709551615, 99999999999999999999999999999999999.999999999999999999999999999999, 3.40282e38, "
    "1.7976931348623157e308, b'1', 18446744073709551615, 2155, '9999-12-31', '838:59:59', "
    "'9999-12-31 23:59:59.999999', FROM_UNIXTIME(2147483647.999999), REPEAT('😀', 10), "
    "CONCAT(' lead q\" b\\\\ n\\n r\\r t\\t nul\\0', CHAR(1, 31, 127 USING utf8mb4), _utf8mb4 X'E280A8', "
    "',comma trail \\0'), REPEAT('ü😀', 8000), X'FFFFFFFF', X'00FF00FF00FF00FF00FF00FF00FF00FF', "
    "REPEAT(X'FF00', 30000), '😀', 'x,y,z', '{\"deep\": {\"a\": [1, 2.5e10, \"\\\\u0000 ü\"]}, \"e\": \"\"}', "
    "ST_GeomFromText('LINESTRING(0 0, 1.5 -2.25, 1e300 -1e-300)'))",
    "(100002, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, "
    "-99999999999999999999999999999999999.999999999999999999999999999999, -3.40282e38, -1.7976931348623157e308, "
    "b'0', 0, 1901, '1000-01-01', '-838:59:59', '1000-01-01 00:00:00', FROM_UNIXTIME(1), '', '', '', X'00000000', "
    "X'', X'', 'alpha', '', '[]', POINT(0, 0))",
    // Zero dates; an ENUM given a value it does not list stores '' (index 0) outside strict mode.
    "(100003, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0.000000000000000000000000000001, 1e-30, 2.2250738585072014e-308, "
    "b'1', 1, 0, '0000-00-00', '00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', ' ', ' ', '\\0', X'00', "
    "X'00', X'00', 'not listed', 'z', 'null', POINT(-1, 1))",
    "(100004, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -0.5, -0.5, -0.5, b'0', 9223372036854775808, 2000, '2024-00-00', "
    "'-00:00:00.000001', '2024-02-00 10:00:00.5', '1999-12-31 23:59:59.000001', 'x', 'x', 'x', X'01', X'FF', "
    "X'FF', 'béta', 'x,z', '\"\"', ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))'))",
    "(100005, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
};

constexpr int generated_rows = 3000;
constexpr std::size_t page_size = 97;

std::string with_column(std::string expression, const std::string& column) {
    const std::string quoted = mysql::quote_identifier(column);
    for (std::size_t at = 0; (at = expression.find("{c}", at)) != std::string::npos; at += quoted.size())
        expression.replace(at, 3, quoted);
    return expression;
}

// For failure messages: the first cell that differs, by row and column name.
std::string first_cell_difference(const std::vector<Row>& actual, const std::vector<Row>& expected,
                                  const std::vector<std::string>& columns) {
    if (actual.size() != expected.size()) return first_difference(actual, expected);
    const auto show = [](const Value& value) { return value ? "'" + *value + "'" : std::string("NULL"); };
    for (std::size_t r = 0; r < actual.size(); ++r) {
        if (actual[r].size() != columns.size()) return "row " + std::to_string(r) + " has the wrong width";
        for (std::size_t c = 0; c < columns.size(); ++c)
            if (actual[r][c] != expected[r][c])
                return "row " + std::to_string(r) + ", column " + columns[c] + ": read " + show(actual[r][c]) +
                       ", expected " + show(expected[r][c]);
    }
    return "no difference";
}

std::string strategy_name(const ::testing::TestParamInfo<PagingStrategy>& info) {
    std::string name = to_string(info.param);
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
}

class TypeFamiliesTest : public Prepared<MySqlTest> {
protected:
    void prepare() override {
        // Zero dates and the ENUM value it does not list are stored only outside strict mode. This session
        // only writes and computes the references; the reader's own sessions keep the server's mode.
        tables().connection().execute_text("SET SESSION sql_mode = ''");
        std::string definition = "(id INT UNSIGNED PRIMARY KEY";
        std::string generated = "seq";
        for (const auto& f : families()) {
            definition += ", " + mysql::quote_identifier(f.name) + " " + f.type;
            generated += ", IF(seq % 17 = 0, NULL, " + f.generated + ")";
        }
        table_ = tables().create("type_families", definition + ") CHARACTER SET utf8mb4");
        tables().execute(table_, "INSERT INTO {t} SELECT " + generated + " FROM seq_1_to_" +
                                     std::to_string(generated_rows));
        for (const auto& row : special_rows) tables().execute(table_, "INSERT INTO {t} VALUES " + row);
        ASSERT_EQ(tables().count(table_), generated_rows + special_rows.size());
    }

    // Every row by id, one value per column: what `expression_of` says the server makes of the column,
    // as hex of its bytes (`as_hex`) or as text; NULL where the column is NULL.
    template <class ExpressionOf>
    std::vector<Row> server_values(const std::vector<std::string>& columns, ExpressionOf expression_of) {
        std::string select;
        for (const auto& column : columns) {
            const auto [expression, as_hex] = expression_of(column);
            const std::string value = with_column(expression, column);
            select += (select.empty() ? "" : ", ") + (as_hex ? "HEX(" + value + ")" : value);
        }
        return tables().rows("SELECT " + select + " FROM " + mysql::quote_identifier(table_) + " ORDER BY id");
    }

    static const Family& family(const std::string& column) {
        for (const auto& candidate : families())
            if (candidate.name == column) return candidate;
        throw std::logic_error("no family " + column);
    }

    static std::vector<std::string> all_columns() {
        std::vector<std::string> names{"id"};
        for (const auto& f : families()) names.push_back(f.name);
        return names;
    }

};

// PageReader's cells, byte for byte and NULL for NULL, equal the server's text of each value.
class TypeFamiliesReaderTest : public TypeFamiliesTest, public ::testing::WithParamInterface<PagingStrategy> {};

TEST_P(TypeFamiliesReaderTest, EveryCellIsTheServersBytes) {
    ReadSpec spec;
    spec.table = table_;
    spec.strategy = GetParam();
    spec.page_size = page_size;
    auto plan = std::make_shared<const ReadPlan>(plan_read(options(), spec));
    std::vector<std::string> planned;
    for (const auto& column : plan->columns) planned.push_back(column.name);
    const auto columns = all_columns();
    ASSERT_EQ(planned, columns);

    const auto expected = server_values(columns, [](const std::string& column) {
        return std::pair{column == "id" ? integer : family(column).text, true};
    });
    ASSERT_GT(expected.size(), 30 * page_size);
    // The reference itself: NULL exactly where the server says the column is NULL, and every column has
    // both NULLs and values.
    std::string is_null;
    for (const auto& column : columns)
        is_null += (is_null.empty() ? "" : ", ") + mysql::quote_identifier(column) + " IS NULL";
    const auto nulls = tables().rows("SELECT " + is_null + " FROM " + mysql::quote_identifier(table_) + " ORDER BY id");
    ASSERT_EQ(nulls.size(), expected.size());
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::size_t null_count = 0;
        for (std::size_t r = 0; r < nulls.size(); ++r) {
            ASSERT_EQ(*nulls[r][c] == "1", !expected[r][c].has_value()) << columns[c] << ", row " << r;
            null_count += *nulls[r][c] == "1";
        }
        if (columns[c] != "id") {
            EXPECT_GT(null_count, 0u) << columns[c];
        }
        EXPECT_LT(null_count, nulls.size()) << columns[c];
    }

    std::map<std::string, bool> all_as_hex;
    for (const auto& column : columns) all_as_hex[column] = true;
    const auto actual = read_all(options(), plan, all_as_hex);
    EXPECT_TRUE(actual == expected) << "(values as hex) " << first_cell_difference(actual, expected, columns);
}

INSTANTIATE_TEST_SUITE_P(Strategies, TypeFamiliesReaderTest,
                         ::testing::Values(PagingStrategy::keyset, PagingStrategy::deferred_join,
                                           PagingStrategy::id_in),
                         strategy_name);

// One NDJSON line as its keys and values: null as NULL, a number as "number <its text exactly>", a string
// as "string <hex of its bytes>". Anything else (booleans, arrays, nested objects) fails the parse: rowpump
// writes none of them.
struct FlatObject : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, FlatObject> {
    std::vector<std::string> keys;
    Row values;
    int depth = 0;

    bool StartObject() { return ++depth == 1; }
    bool EndObject(rapidjson::SizeType) { return --depth == 0; }
    bool Key(const char* text, rapidjson::SizeType length, bool) {
        keys.emplace_back(text, length);
        return true;
    }
    bool Null() {
        values.emplace_back(std::nullopt);
        return true;
    }
    bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
        values.emplace_back("number " + std::string(text, length));
        return true;
    }
    bool String(const char* text, rapidjson::SizeType length, bool) {
        values.emplace_back("string " + hex(std::string_view(text, length)));
        return true;
    }
    bool Default() { return false; }
};

// RFC 4180 records. An empty unquoted field is NULL, a quoted one a string (the CSV encoder's rule).
std::vector<Row> parse_csv(std::string_view text, std::string& problem) {
    std::vector<Row> records;
    Row record;
    std::size_t i = 0;
    while (i < text.size()) {
        Value field;
        if (text[i] == '"') {
            std::string quoted;
            for (++i;; ++i) {
                if (i >= text.size()) {
                    problem = "a quoted field does not end";
                    return records;
                }
                if (text[i] == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') ++i;
                    else break;
                }
                quoted += text[i];
            }
            ++i;
            field = std::move(quoted);
        } else {
            const auto end = std::min(text.find_first_of(",\n", i), text.size());
            if (end > i) field = std::string(text.substr(i, end - i));
            i = end;
        }
        record.push_back(std::move(field));
        if (i < text.size() && text[i] == ',') {
            ++i;
        } else if (i >= text.size() || text[i] == '\n') {
            records.push_back(std::move(record));
            record.clear();
            ++i;
        } else {
            problem = "a quoted field is followed by '" + std::string(1, text[i]) + "' at byte " + std::to_string(i);
            return records;
        }
    }
    return records;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ",") + name;
    return out;
}

class TypeFamiliesCliTest : public TypeFamiliesTest, public ::testing::WithParamInterface<PagingStrategy> {};

TEST_P(TypeFamiliesCliTest, JsonValuesAreTheServersValues) {
    const auto columns = all_columns();
    const auto run = run_rowpump({"read", "--table", table_, "--format", "json", "--strategy", to_string(GetParam()),
                                  "--page-size", std::to_string(page_size), "--columns", join(columns)});
    ASSERT_EQ(run.exit_code, 0) << run.describe();

    const auto server = server_values(columns, [](const std::string& column) {
        if (column == "id") return std::pair{integer, false};
        const auto& f = family(column);
        return std::pair{f.json_text, f.json == JsonType::string};
    });
    std::vector<Row> expected;
    for (const auto& row : server) {
        Row values;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const bool is_string = columns[c] != "id" && family(columns[c]).json == JsonType::string;
            if (row[c]) values.emplace_back((is_string ? "string " : "number ") + *row[c]);
            else values.emplace_back(std::nullopt);
        }
        expected.push_back(std::move(values));
    }

    std::vector<Row> actual;
    for (const auto& line : lines(run.out)) {
        FlatObject object;
        rapidjson::Reader reader;
        rapidjson::StringStream stream(line.c_str());
        const auto parsed =
            reader.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag>(stream, object);
        ASSERT_FALSE(parsed.IsError()) << "line " << actual.size() + 1 << " is not one flat JSON object of valid "
                                       << "UTF-8 (error at byte " << parsed.Offset() << "): " << line.substr(0, 300);
        ASSERT_EQ(object.keys, columns) << "line " << actual.size() + 1;
        actual.push_back(std::move(object.values));
    }
    EXPECT_TRUE(actual == expected) << "(strings as hex) " << first_cell_difference(actual, expected, columns);
}

INSTANTIATE_TEST_SUITE_P(Strategies, TypeFamiliesCliTest,
                         ::testing::Values(PagingStrategy::keyset, PagingStrategy::deferred_join,
                                           PagingStrategy::id_in),
                         strategy_name);

TEST_F(TypeFamiliesTest, CsvFieldsAreTheServersText) {
    const auto columns = all_columns();
    const auto run = run_rowpump({"read", "--table", table_, "--format", "csv", "--page-size",
                                  std::to_string(page_size), "--columns", join(columns)});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const auto expected = server_values(columns, [](const std::string& column) {
        return std::pair{column == "id" ? integer : family(column).csv_text, true};
    });

    std::string problem;
    auto records = parse_csv(run.out, problem);
    ASSERT_EQ(problem, "") << run.describe();
    ASSERT_FALSE(records.empty()) << run.describe();
    Row header;
    for (const auto& column : columns) header.emplace_back(column);
    EXPECT_EQ(records.front(), header);
    std::vector<Row> actual;
    for (std::size_t r = 1; r < records.size(); ++r) {
        Row values;
        for (const auto& field : records[r]) values.emplace_back(field ? Value(hex(*field)) : std::nullopt);
        actual.push_back(std::move(values));
    }
    EXPECT_TRUE(actual == expected) << "(fields as hex) " << first_cell_difference(actual, expected, columns);
}

}  // namespace
}  // namespace rowpump::test
