// --big-numbers (docs/payloads-and-names.md): with `string`, DECIMAL and integers beyond +-(2^53 - 1) are
// JSON strings, everything else as before; `number` (the default) keeps every number a number.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "encode/json_number.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

std::string encode_one(ColumnKind kind, const std::string& value, BigNumbers big) {
    Column column;
    column.name = "v";
    column.kind = kind;
    Page page(1);
    page.append(value);
    PayloadOptions options;
    options.big_numbers = big;
    std::string out;
    make_encoder(Format::json, {column}, options)->encode(page, 0, out);
    return out;
}

TEST(BigNumbersTest, StringQuotesDecimalsAndUnsafeIntegersOnly) {
    const auto s = BigNumbers::string;
    EXPECT_EQ(encode_one(ColumnKind::decimal, "12345678901234567890.0123456789", s),
              R"({"v":"12345678901234567890.0123456789"})");
    EXPECT_EQ(encode_one(ColumnKind::decimal, "1.50", s), R"({"v":"1.50"})") << "every DECIMAL: one type per column";
    EXPECT_EQ(encode_one(ColumnKind::unsigned_integer, "18446744073709551615", s), R"({"v":"18446744073709551615"})");
    EXPECT_EQ(encode_one(ColumnKind::signed_integer, "-9007199254740992", s), R"({"v":"-9007199254740992"})");
    EXPECT_EQ(encode_one(ColumnKind::signed_integer, "9007199254740991", s), R"({"v":9007199254740991})");
    EXPECT_EQ(encode_one(ColumnKind::signed_integer, "-42", s), R"({"v":-42})");
    EXPECT_EQ(encode_one(ColumnKind::floating, "1.7976931348623157e308", s), R"({"v":1.7976931348623157e308})");
    EXPECT_EQ(encode_one(ColumnKind::decimal, "00042.5", s), R"({"v":"42.5"})") << "the JSON spelling, quoted";
}

TEST(BigNumbersTest, NumberKeepsTheServersTextAsANumber) {
    EXPECT_EQ(encode_one(ColumnKind::decimal, "12345678901234567890.0123456789", BigNumbers::number),
              R"({"v":12345678901234567890.0123456789})");
    EXPECT_EQ(encode_one(ColumnKind::unsigned_integer, "18446744073709551615", BigNumbers::number),
              R"({"v":18446744073709551615})");
    EXPECT_EQ(PayloadOptions().big_numbers, BigNumbers::number) << "the default keeps existing payloads";
}

TEST(BigNumbersTest, SafeIntegerBoundaryIsJavaScriptsMaxSafeInteger) {
    EXPECT_TRUE(is_safe_integer("9007199254740991"));
    EXPECT_TRUE(is_safe_integer("-9007199254740991"));
    EXPECT_FALSE(is_safe_integer("9007199254740992"));
    EXPECT_FALSE(is_safe_integer("10000000000000000"));
    EXPECT_FALSE(is_safe_integer("1.5"));
    EXPECT_EQ(parse_big_numbers("string"), BigNumbers::string);
    EXPECT_THROW(parse_big_numbers("strings"), UsageError);
}

}  // namespace
}  // namespace rowpump
