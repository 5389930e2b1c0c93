#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "encode/base64.hpp"
#include "encode/json_number.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using namespace std::string_literals;

using test::column;
using test::one_row;

std::string encode(Format format, const std::vector<Column>& columns, const Page& page, std::size_t row = 0) {
    std::string out;
    make_encoder(format, columns)->encode(page, row, out);
    return out;
}

rapidjson::Document parse_json(const std::string& text, unsigned flags = rapidjson::kParseDefaultFlags) {
    rapidjson::Document document;
    if (flags & rapidjson::kParseNumbersAsStringsFlag)
        document.Parse<rapidjson::kParseNumbersAsStringsFlag>(text.data(), text.size());
    else
        document.Parse(text.data(), text.size());
    EXPECT_FALSE(document.HasParseError())
        << rapidjson::GetParseError_En(document.GetParseError()) << " at " << document.GetErrorOffset() << " in "
        << text;
    return document;
}

// The page's row as JSON is exactly `expected`, and a JSON parser accepts it.
void expect_json_row(const std::vector<Column>& columns, const Page& page, const std::string& expected) {
    const std::string json = encode(Format::json, columns, page);
    EXPECT_EQ(json, expected);
    parse_json(json);
}

std::string string_member(const rapidjson::Document& document, const char* name) {
    const auto& value = document[name];
    return std::string(value.GetString(), value.GetStringLength());
}

// --- JSON numbers -------------------------------------------------------------------------------------

const std::string decimal_65_30 = "12345678901234567890123456789012345.123456789012345678901234567890";

TEST(JsonEncoder, IntegersAndDecimalsAreExactNumbers) {
    const std::vector<Column> columns = {
        column("i", ColumnKind::signed_integer), column("u", ColumnKind::unsigned_integer),
        column("d", ColumnKind::decimal),        column("neg", ColumnKind::decimal),
        column("b", ColumnKind::bit),            column("y", ColumnKind::year),
    };
    const Page page = one_row({"-9223372036854775808", "18446744073709551615", decimal_65_30, "-0.000000000000000000000000000001",
                               "5", "2024"});
    const std::string json = encode(Format::json, columns, page);
    EXPECT_EQ(json, R"({"i":-9223372036854775808,"u":18446744073709551615,"d":)" + decimal_65_30 +
                        R"(,"neg":-0.000000000000000000000000000001,"b":5,"y":2024})");

    const auto document = parse_json(json);
    EXPECT_EQ(document["i"].GetInt64(), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(document["u"].GetUint64(), std::numeric_limits<std::uint64_t>::max());
    EXPECT_TRUE(document["d"].IsNumber());
    EXPECT_EQ(document["b"].GetInt(), 5);
    EXPECT_EQ(document["y"].GetInt(), 2024);

    const auto exact = parse_json(json, rapidjson::kParseNumbersAsStringsFlag);
    EXPECT_EQ(string_member(exact, "d"), decimal_65_30);
    EXPECT_EQ(string_member(exact, "neg"), "-0.000000000000000000000000000001");
}

TEST(JsonEncoder, FloatingNumbersKeepTheServerText) {
    const std::vector<Column> columns = {column("a", ColumnKind::floating), column("b", ColumnKind::floating),
                                         column("c", ColumnKind::floating), column("d", ColumnKind::floating)};
    const std::string json = encode(Format::json, columns, one_row({"1.5", "-1.7976931348623157e308", "1E-7", "-0"}));
    EXPECT_EQ(json, R"({"a":1.5,"b":-1.7976931348623157e308,"c":1E-7,"d":-0})");
    const auto document = parse_json(json);
    EXPECT_DOUBLE_EQ(document["a"].GetDouble(), 1.5);
    EXPECT_DOUBLE_EQ(document["b"].GetDouble(), -std::numeric_limits<double>::max());
    EXPECT_DOUBLE_EQ(document["c"].GetDouble(), 1e-7);
}

TEST(JsonEncoder, NonFiniteFloatingIsNull) {
    std::vector<Column> columns;
    const std::vector<std::string> texts = {"inf", "-inf", "nan", "NaN", "Infinity", "", "1e", "1.5x", "-"};
    std::vector<std::optional<std::string>> values;
    std::string expected = "{";
    for (std::size_t i = 0; i < texts.size(); ++i) {
        columns.push_back(column("f" + std::to_string(i), ColumnKind::floating));
        values.emplace_back(texts[i]);
        expected += (i ? ",\"f" : "\"f") + std::to_string(i) + "\":null";
    }
    expect_json_row(columns, one_row(values), expected + "}");
}

TEST(JsonEncoder, NumberTextJsonRejectsIsRewritten) {
    const std::vector<Column> columns = {
        column("year", ColumnKind::year),      column("zerofill", ColumnKind::unsigned_integer),
        column("half", ColumnKind::floating),  column("plus", ColumnKind::floating),
        column("point", ColumnKind::decimal),  column("neg", ColumnKind::floating),
    };
    expect_json_row(columns, one_row({"0000", "00042", ".5", "+1.5", "7.", "-00.25e+3"}),
                    R"({"year":0,"zerofill":42,"half":0.5,"plus":1.5,"point":7,"neg":-0.25e+3})");
}

TEST(JsonNumber, AcceptsJsonAsIsAndRejectsNonNumbers) {
    std::string scratch;
    const std::string_view canonical = "-12.5e-3";
    const auto same = json_number(canonical, scratch);
    ASSERT_TRUE(same);
    EXPECT_EQ(same->data(), canonical.data());  // no copy for the usual case
    EXPECT_EQ(json_number("0", scratch), "0");
    EXPECT_EQ(json_number("000", scratch), "0");
    EXPECT_EQ(json_number("-.5", scratch), "-0.5");
    EXPECT_EQ(json_number("1E5", scratch), "1E5");
    EXPECT_FALSE(json_number(".", scratch));
    EXPECT_FALSE(json_number("+", scratch));
    EXPECT_FALSE(json_number("1e+", scratch));
    EXPECT_FALSE(json_number(" 1", scratch));
    EXPECT_FALSE(json_number("0x10", scratch));
    EXPECT_FALSE(json_number("--1", scratch));
}

// --- JSON strings -------------------------------------------------------------------------------------

TEST(JsonEncoder, EscapesQuotesBackslashesAndControlCharacters) {
    const std::vector<Column> columns = {column("t", ColumnKind::text)};
    const std::string value = "a\"b\\c\nd\te\x01" "f\x1f" "g\r\b\f/\x7f";
    const std::string json = encode(Format::json, columns, one_row({value}));
    EXPECT_EQ(json, "{\"t\":\"a\\\"b\\\\c\\nd\\te\\u0001f\\u001Fg\\r\\b\\f/\x7f\"}");
    EXPECT_EQ(string_member(parse_json(json), "t"), value);
}

TEST(JsonEncoder, NulInsideTextIsEscaped) {
    const std::vector<Column> columns = {column("t", ColumnKind::text)};
    const std::string value = "a\0b"s;
    const std::string json = encode(Format::json, columns, one_row({value}));
    EXPECT_EQ(json, R"({"t":"a\u0000b"})");
    EXPECT_EQ(string_member(parse_json(json), "t"), value);
}

TEST(JsonEncoder, UnicodeIsCopiedAsUtf8) {
    const std::vector<Column> columns = {column("t", ColumnKind::text), column("line_separator", ColumnKind::text)};
    const std::string text = "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80";  // café 日本 😀
    const std::string separators = "a\xe2\x80\xa8" "b\xe2\x80\xa9" "c";                   // U+2028, U+2029
    const std::string json = encode(Format::json, columns, one_row({text, separators}));
    EXPECT_EQ(json, "{\"t\":\"" + text + "\",\"line_separator\":\"" + separators + "\"}");
    const auto document = parse_json(json);
    EXPECT_EQ(string_member(document, "t"), text);
    EXPECT_EQ(string_member(document, "line_separator"), separators);
}

TEST(JsonEncoder, JsonAndOtherColumnsAreStrings) {
    const std::vector<Column> columns = {column("j", ColumnKind::json), column("o", ColumnKind::other),
                                         column("e", ColumnKind::text)};
    const std::string json = encode(Format::json, columns, one_row({R"({"a": [1, "x"]})", "POINT(1 2)", ""}));
    EXPECT_EQ(json, R"json({"j":"{\"a\": [1, \"x\"]}","o":"POINT(1 2)","e":""})json");
    const auto document = parse_json(json);
    EXPECT_EQ(string_member(document, "j"), R"({"a": [1, "x"]})");
}

TEST(JsonEncoder, ColumnNamesAreEscapedKeys) {
    const std::vector<Column> columns = {column("we\"ird\\name", ColumnKind::signed_integer),
                                         column("\xe5\x90\x8d", ColumnKind::text)};
    const std::string json = encode(Format::json, columns, one_row({"1", "x"}));
    EXPECT_EQ(json, "{\"we\\\"ird\\\\name\":1,\"\xe5\x90\x8d\":\"x\"}");
    const auto document = parse_json(json);
    EXPECT_EQ(document["we\"ird\\name"].GetInt(), 1);
}

// --- JSON binary, dates, NULL -------------------------------------------------------------------------

TEST(JsonEncoder, BinaryIsBase64) {
    const std::vector<Column> columns = {column("b", ColumnKind::binary), column("empty", ColumnKind::binary)};
    expect_json_row(columns, one_row({"\0\xff\x01 \""s, ""}), R"({"b":"AP8BICI=","empty":""})");
}

// Sessions read in UTC (time_zone '+00:00'), so a TIMESTAMP is an instant and says so; a DATETIME is a
// wall-clock value with no zone, and a zero TIMESTAMP is no instant at all.
TEST(JsonEncoder, TimestampsEndInZAndDatetimesDoNot) {
    Column stamp = column("stamp", ColumnKind::datetime);
    stamp.column_type = "timestamp(3)";
    Column plain_stamp = column("plain_stamp", ColumnKind::datetime);
    plain_stamp.column_type = "timestamp";
    Column zero_stamp = column("zero_stamp", ColumnKind::datetime);
    zero_stamp.column_type = "timestamp";
    Column wall = column("wall", ColumnKind::datetime);
    wall.column_type = "datetime(3)";
    const Page page = one_row({"2024-06-01 12:00:00.250", "2024-06-01 12:00:00", "0000-00-00 00:00:00",
                               "2024-06-01 17:00:00.250"});
    expect_json_row({stamp, plain_stamp, zero_stamp, wall}, page,
                    R"({"stamp":"2024-06-01T12:00:00.250Z","plain_stamp":"2024-06-01T12:00:00Z",)"
                    R"("zero_stamp":"0000-00-00 00:00:00","wall":"2024-06-01T17:00:00.250"})");
}

TEST(JsonEncoder, DatesAndTimesAreIso8601) {
    const std::vector<Column> columns = {
        column("date", ColumnKind::date),         column("datetime", ColumnKind::datetime),
        column("seconds", ColumnKind::datetime),  column("time", ColumnKind::time),
        column("long_time", ColumnKind::time),    column("zero", ColumnKind::datetime),
        column("zero_date", ColumnKind::date),
    };
    const Page page = one_row({"2024-05-01", "2024-05-01 12:00:00.250000", "1999-12-31 23:59:59", "12:00:00.5",
                               "-838:59:59", "0000-00-00 00:00:00", "0000-00-00"});
    expect_json_row(columns, page,
                    R"({"date":"2024-05-01","datetime":"2024-05-01T12:00:00.250000","seconds":"1999-12-31T23:59:59",)"
                    R"("time":"12:00:00.5","long_time":"-838:59:59","zero":"0000-00-00 00:00:00",)"
                    R"("zero_date":"0000-00-00"})");
}

TEST(JsonEncoder, NullIsNullForEveryKind) {
    const std::vector<ColumnKind> kinds = {
        ColumnKind::signed_integer, ColumnKind::unsigned_integer, ColumnKind::decimal, ColumnKind::floating,
        ColumnKind::bit,            ColumnKind::year,             ColumnKind::date,    ColumnKind::datetime,
        ColumnKind::time,           ColumnKind::text,             ColumnKind::binary,  ColumnKind::json,
        ColumnKind::other,
    };
    std::vector<Column> columns;
    std::string expected = "{";
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        columns.push_back(column("c" + std::to_string(i), kinds[i]));
        expected += (i ? ",\"c" : "\"c") + std::to_string(i) + "\":null";
    }
    const std::string json =
        encode(Format::json, columns, one_row(std::vector<std::optional<std::string>>(kinds.size())));
    EXPECT_EQ(json, expected + "}");
    const auto document = parse_json(json);
    for (const auto& member : document.GetObject()) EXPECT_TRUE(member.value.IsNull());
}

// --- JSON rows and pages ------------------------------------------------------------------------------

TEST(JsonEncoder, AppendsTheChosenRowWithoutLineEnd) {
    const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("c", ColumnKind::text)};
    Page page(2);
    for (int row = 0; row < 3; ++row) {
        page.append(std::to_string(row));
        page.append("row " + std::to_string(row));
    }
    const auto encoder = make_encoder(Format::json, columns);
    EXPECT_EQ(encoder->header(), "");
    std::string out = "[";
    for (std::size_t row = 0; row < page.row_count(); ++row) {
        if (row) out += ',';
        encoder->encode(page, row, out);
    }
    out += ']';
    EXPECT_EQ(out, R"([{"id":0,"c":"row 0"},{"id":1,"c":"row 1"},{"id":2,"c":"row 2"}])");
    EXPECT_TRUE(parse_json(out).IsArray());
}

TEST(JsonEncoder, IgnoresFurtherPageColumnsAndRefusesTooFew) {
    const Page page = one_row({"1", "hidden"});
    EXPECT_EQ(encode(Format::json, {column("id", ColumnKind::signed_integer)}, page), R"({"id":1})");
    EXPECT_EQ(encode(Format::json, {}, page), "{}");
    const std::vector<Column> three = {column("a", ColumnKind::text), column("b", ColumnKind::text),
                                       column("c", ColumnKind::text)};
    EXPECT_THROW(encode(Format::json, three, page), Error);
    EXPECT_THROW(encode(Format::csv, three, page), Error);
}

TEST(JsonEncoder, EveryLineParsesBackToTheSameValues) {
    const std::vector<std::string> texts = {
        "",           "plain",       "\"",           "\\",         "\\\"",       "\n\r\t",         "\x01\x1f",
        "{\"a\":1}",  "</script>",   "\xe2\x80\xa8", "a\0b"s,      "\xf0\x9f\x8e\x89 party", "  spaced  "};
    const std::vector<Column> columns = {column("id", ColumnKind::unsigned_integer), column("v", ColumnKind::text),
                                         column("raw", ColumnKind::binary)};
    Page page(3);
    for (std::size_t i = 0; i < texts.size(); ++i) {
        page.append(std::to_string(i));
        page.append(texts[i]);
        page.append(texts[i]);
    }
    const auto encoder = make_encoder(Format::json, columns);
    for (std::size_t row = 0; row < page.row_count(); ++row) {
        std::string line;
        encoder->encode(page, row, line);
        EXPECT_EQ(line.find('\n'), std::string::npos) << line;
        const auto document = parse_json(line);
        EXPECT_EQ(document["id"].GetUint64(), row);
        EXPECT_EQ(string_member(document, "v"), texts[row]);
        EXPECT_EQ(string_member(document, "raw"), base64_encode(texts[row]));
    }
}

// --- CSV ----------------------------------------------------------------------------------------------

TEST(CsvEncoder, HeaderNamesTheColumnsEscapedLikeFields) {
    const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("na,me", ColumnKind::text),
                                         column("q\"uote", ColumnKind::text), column("plain", ColumnKind::text)};
    EXPECT_EQ(make_encoder(Format::csv, columns)->header(), R"(id,"na,me","q""uote",plain)");
}

TEST(CsvEncoder, QuotesOnlyWhatNeedsIt) {
    const std::vector<Column> columns = {
        column("plain", ColumnKind::text),  column("comma", ColumnKind::text),   column("quote", ColumnKind::text),
        column("lf", ColumnKind::text),     column("cr", ColumnKind::text),      column("empty", ColumnKind::text),
        column("null", ColumnKind::text),   column("space", ColumnKind::text),   column("tab", ColumnKind::text),
        column("unicode", ColumnKind::text),
    };
    const Page page = one_row({"abc", "a,b", "say \"hi\"", "line1\nline2", "a\rb", "", std::nullopt, " padded ",
                               "a\tb", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"});
    EXPECT_EQ(encode(Format::csv, columns, page),
              "abc,\"a,b\",\"say \"\"hi\"\"\",\"line1\nline2\",\"a\rb\",\"\",,\" padded \",a\tb,"
              "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
}

TEST(CsvEncoder, EmptyStringAndNullDiffer) {
    const std::vector<Column> columns = {column("a", ColumnKind::text), column("b", ColumnKind::text),
                                         column("c", ColumnKind::binary), column("d", ColumnKind::binary)};
    EXPECT_EQ(encode(Format::csv, columns, one_row({"", std::nullopt, "", std::nullopt})), R"("",,"",)");
    EXPECT_EQ(encode(Format::csv, columns, one_row({std::nullopt, std::nullopt, std::nullopt, std::nullopt})), ",,,");
}

TEST(CsvEncoder, NumbersAndDatesKeepTheServerText) {
    const std::vector<Column> columns = {
        column("i", ColumnKind::signed_integer), column("u", ColumnKind::unsigned_integer),
        column("d", ColumnKind::decimal),        column("f", ColumnKind::floating),
        column("dt", ColumnKind::datetime),      column("date", ColumnKind::date),
        column("t", ColumnKind::time),
    };
    const Page page = one_row({"-9223372036854775808", "18446744073709551615", decimal_65_30, "inf",
                               "2024-05-01 12:00:00.250000", "0000-00-00", "-838:59:59"});
    EXPECT_EQ(encode(Format::csv, columns, page), "-9223372036854775808,18446744073709551615," + decimal_65_30 +
                                                      ",inf,2024-05-01 12:00:00.250000,0000-00-00,-838:59:59");
}

TEST(CsvEncoder, BinaryIsBase64) {
    const std::vector<Column> columns = {column("b", ColumnKind::binary), column("comma", ColumnKind::binary)};
    EXPECT_EQ(encode(Format::csv, columns, one_row({"\0\xff"s, "a,b"})), "AP8=,YSxi");
}

TEST(CsvEncoder, AppendsWithoutLineEnd) {
    const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("c", ColumnKind::text)};
    Page page(2);
    page.append("1");
    page.append("one");
    page.append("2");
    page.append("two\n");
    const auto encoder = make_encoder(Format::csv, columns);
    std::string out = encoder->header() + "\r\n";
    for (std::size_t row = 0; row < page.row_count(); ++row) {
        encoder->encode(page, row, out);
        out += "\r\n";
    }
    EXPECT_EQ(out, "id,c\r\n1,one\r\n2,\"two\n\"\r\n");
}

// --- base64 and formats -------------------------------------------------------------------------------

TEST(Base64, Rfc4648TestVectors) {
    const std::pair<const char*, const char*> vectors[] = {
        {"", ""},          {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
    };
    for (const auto& [text, encoded] : vectors) EXPECT_EQ(base64_encode(text), encoded) << text;
}

TEST(Base64, EveryByteValue) {
    EXPECT_EQ(base64_encode("\0"s), "AA==");
    EXPECT_EQ(base64_encode("\xff\xff\xff"), "////");
    EXPECT_EQ(base64_encode("\xfb\xef\xbe"), "++++");
    std::string all;
    for (int byte = 0; byte < 256; ++byte) all += static_cast<char>(byte);
    const std::string encoded = base64_encode(all);
    EXPECT_EQ(encoded.size(), 344u);
    EXPECT_EQ(encoded.substr(0, 16), "AAECAwQFBgcICQoL");
    EXPECT_EQ(encoded.substr(encoded.size() - 8), "/P3+/w==");
}

TEST(Format, ParsesJsonAndCsv) {
    EXPECT_EQ(parse_format("json"), Format::json);
    EXPECT_EQ(parse_format("csv"), Format::csv);
}

TEST(Format, RejectsOthersNamingTheValueAndTheChoices) {
    for (const std::string bad : {"xml", "", "JSONL", "json "}) {
        try {
            parse_format(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const UsageError& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("'" + bad + "'"), std::string::npos) << message;
            EXPECT_NE(message.find("json"), std::string::npos) << message;
            EXPECT_NE(message.find("csv"), std::string::npos) << message;
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
            EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
        }
    }
}

}  // namespace
}  // namespace rowpump
