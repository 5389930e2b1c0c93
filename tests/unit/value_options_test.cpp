// The options that say how values are written: CSV's NULL as \N (PayloadOptions::csv_null) and JSON
// columns embedded as JSON values (PayloadOptions::json_columns).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;
using test::one_row;
using namespace std::string_literals;

std::string encode(Format format, const std::vector<Column>& columns, const Page& page, const PayloadOptions& payload) {
    std::string out;
    make_encoder(format, columns, payload)->encode(page, 0, out);
    return out;
}

PayloadOptions csv_backslash_null() {
    PayloadOptions payload;
    payload.csv_null = CsvNull::backslash_n;
    return payload;
}

PayloadOptions embedded_json() {
    PayloadOptions payload;
    payload.json_columns = JsonColumns::embed;
    return payload;
}

TEST(CsvNull, NullIsBackslashNAndValuesKeepTheirBackslashesDoubled) {
    const std::vector<Column> columns = {column("a", ColumnKind::text), column("b", ColumnKind::text),
                                         column("c", ColumnKind::text), column("d", ColumnKind::text),
                                         column("e", ColumnKind::text), column("f", ColumnKind::binary)};
    // NULL; the two characters \N; an empty string; a backslash inside quotes; the word NULL; a NULL blob.
    const Page page = one_row({std::nullopt, "\\N", "", "a \"b\\\" ,c", "NULL", std::nullopt});
    EXPECT_EQ(encode(Format::csv, columns, page, csv_backslash_null()),
              R"(\N,\\N,"","a ""b\\"" ,c","NULL",\N)");
    // The default is as before: NULL an empty field, nothing doubled.
    EXPECT_EQ(encode(Format::csv, columns, page, {}), R"(,\N,"","a ""b\"" ,c",NULL,)");
}

TEST(CsvNull, ParsesItsNamesAndIsOnlyForCsv) {
    EXPECT_EQ(parse_csv_null("empty"), CsvNull::empty);
    EXPECT_EQ(parse_csv_null("\\N"), CsvNull::backslash_n);
    EXPECT_THROW(parse_csv_null("NULL"), UsageError);
    EXPECT_THROW(check_payload_options(Format::json, csv_backslash_null()), UsageError);
    EXPECT_NO_THROW(check_payload_options(Format::csv, csv_backslash_null()));
}

TEST(JsonColumns, EmbedWritesTheValueCompactedWithItsNumbersExact) {
    const std::vector<Column> columns = {column("id", ColumnKind::signed_integer), column("doc", ColumnKind::json),
                                         column("note", ColumnKind::text)};
    const Page page = one_row({"7", "{\n  \"a\": [1, 2.50, 123456789012345678901234567890],\n  \"s\": \"x\\ny\"\n}",
                               "{\"not\": \"embedded\"}"});
    EXPECT_EQ(encode(Format::json, columns, page, embedded_json()),
              R"({"id":7,"doc":{"a":[1,2.50,123456789012345678901234567890],"s":"x\ny"},"note":"{\"not\": \"embedded\"}"})");
    // The default keeps the text as a string.
    EXPECT_EQ(encode(Format::json, columns, one_row({"7", "[1]", "n"}), {}), R"({"id":7,"doc":"[1]","note":"n"})");
    // NULL stays null, and a JSON null or scalar is embedded as itself.
    EXPECT_EQ(encode(Format::json, columns, one_row({"1", std::nullopt, "n"}), embedded_json()),
              R"({"id":1,"doc":null,"note":"n"})");
    EXPECT_EQ(encode(Format::json, columns, one_row({"1", " \"s\" ", "n"}), embedded_json()),
              R"({"id":1,"doc":"s","note":"n"})");
}

TEST(JsonColumns, EmbedAppliesToTemplatesAndWorkerFormats) {
    const std::vector<Column> columns = {column("doc", ColumnKind::json)};
    PayloadOptions payload = embedded_json();
    payload.template_text = "{doc:json}|{row}";
    EXPECT_EQ(encode(Format::payload_template, columns, one_row({"[1, 2]"}), payload), R"([1,2]|{"doc":[1,2]})");
}

TEST(JsonColumns, AValueThatIsNotJsonFailsNamingItsColumn) {
    const std::vector<Column> columns = {column("doc", ColumnKind::json)};
    for (const std::string bad : {"{", "[1,]", "1 2", "", "\xff\"", "{\"a\":1} x"}) {
        try {
            encode(Format::json, columns, one_row({bad}), embedded_json());
            ADD_FAILURE() << "embedded: [" << bad << "]";
        } catch (const Error& error) {
            EXPECT_NE(std::string(error.what()).find("column `doc` holds a value that is not JSON"), std::string::npos)
                << error.what();
        }
    }
    EXPECT_EQ(parse_json_columns("embed"), JsonColumns::embed);
    EXPECT_THROW(parse_json_columns("raw"), UsageError);
}

}  // namespace
}  // namespace rowpump
