// Payload templates (--format template, docs/payloads-and-names.md): what each placeholder writes, the
// literal braces, NULL, and that every malformed template is refused with the position to fix.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "encode/payload_template.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;

const std::vector<Column> columns{column("id", ColumnKind::unsigned_integer), column("name", ColumnKind::text),
                                  column("price", ColumnKind::decimal), column("row", ColumnKind::text)};

std::string encode(const std::string& text, const std::vector<std::optional<std::string>>& values,
                   BigNumbers big = BigNumbers::number) {
    Page page(values.size());
    for (const auto& value : values) {
        if (value) page.append(*value);
        else page.append_null();
    }
    PayloadOptions options;
    options.template_text = text;
    options.big_numbers = big;
    std::string out = "kept:";  // the encoder appends to the reused buffer
    make_encoder(Format::payload_template, columns, options)->encode(page, 0, out);
    return out;
}

// The message of the UsageError a template gets, or "" when it is accepted.
std::string refusal(const std::string& text) {
    try {
        PayloadOptions options;
        options.template_text = text;
        make_encoder(Format::payload_template, columns, options);
    } catch (const UsageError& error) {
        EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
        return error.what();
    }
    return "";
}

TEST(PayloadTemplateTest, PlaceholdersWriteRawValuesJsonAndTheRow) {
    const std::vector<std::optional<std::string>> row{"42", "a \"b\"", "1.50", "r"};
    EXPECT_EQ(encode("{id}", row), "kept:42");
    EXPECT_EQ(encode("id={id} name={name}", row), "kept:id=42 name=a \"b\"");
    EXPECT_EQ(encode("{name:json}", row), "kept:\"a \\\"b\\\"\"");
    EXPECT_EQ(encode("{{\"task\":{row}}}", row),
              "kept:{\"task\":{\"id\":42,\"name\":\"a \\\"b\\\"\",\"price\":1.50,\"row\":\"r\"}}");
    EXPECT_EQ(encode("{row:raw}", row), "kept:r") << "a column named row is reached with :raw";
    EXPECT_EQ(encode("{{{id}}}", row), "kept:{42}") << "doubled braces are literal";
    EXPECT_EQ(encode("{price:json}", row, BigNumbers::string), "kept:\"1.50\"");
}

TEST(PayloadTemplateTest, NullIsNothingRawAndNullAsJson) {
    const std::vector<std::optional<std::string>> row{"7", std::nullopt, std::nullopt, std::nullopt};
    EXPECT_EQ(encode("[{name}]", row), "kept:[]");
    EXPECT_EQ(encode("[{name:json}]", row), "kept:[null]");
}

TEST(PayloadTemplateTest, SegmentsAreCompiledOnce) {
    const auto segments = parse_payload_template("id={id}&j={name:json}{row}");
    ASSERT_EQ(segments.size(), 5u);
    EXPECT_EQ(segments[0].kind, TemplateSegment::Kind::text);
    EXPECT_EQ(segments[1].kind, TemplateSegment::Kind::raw);
    EXPECT_EQ(segments[1].position, 4u);
    EXPECT_EQ(segments[2].text, "&j=");
    EXPECT_EQ(segments[3].kind, TemplateSegment::Kind::json);
    EXPECT_EQ(segments[3].position, 11u);
    EXPECT_EQ(segments[4].kind, TemplateSegment::Kind::row);
}

TEST(PayloadTemplateTest, ErrorsNameWhatAndThePosition) {
    EXPECT_EQ(refusal("id={nmae}"),
              "template 'id={nmae}': unknown column 'nmae' at position 4: the columns read are id, name, price, row "
              "(or {row} for all of them)");
    EXPECT_EQ(refusal("x{id"), "template 'x{id': '{' without its '}' at position 2: close the placeholder, or write "
                               "{{ or }} for a literal brace");
    EXPECT_EQ(refusal("{a{id}"), "template '{a{id}': '{' without its '}' at position 1: close the placeholder, or "
                                 "write {{ or }} for a literal brace");
    EXPECT_EQ(refusal("ab}"), "template 'ab}': a lone '}' at position 3: write {{ or }} for a literal brace");
    EXPECT_EQ(refusal("a{}"), "template 'a{}': an empty placeholder {} at position 2: name what to insert");
    EXPECT_EQ(refusal("{id:xml}"), "template '{id:xml}': unknown modifier ':xml' in {id:xml} at position 1: write "
                                   "{column}, {column:json} or {column:raw}");
    EXPECT_EQ(refusal("{:json}"), "template '{:json}': no column name in {:json} at position 1: write {column}, "
                                  "{column:json} or {row}");
    EXPECT_NE(refusal("").find("empty template"), std::string::npos);
    EXPECT_NE(refusal("{\"id\":{id}}").find("at position 1"), std::string::npos) << "JSON braces must be doubled";
    EXPECT_EQ(refusal("{id}{{}}"), "");
}

TEST(PayloadTemplateTest, TemplateAndFormatMustGoTogether) {
    PayloadOptions options;
    options.template_text = "{id}";
    EXPECT_THROW(check_payload_options(Format::json, options), UsageError);
    EXPECT_NO_THROW(check_payload_options(Format::payload_template, options));
    EXPECT_THROW(check_payload_options(Format::payload_template, PayloadOptions{}), UsageError);
    EXPECT_EQ(parse_format("template"), Format::payload_template);
}

}  // namespace
}  // namespace rowpump
