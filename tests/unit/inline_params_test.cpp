// The streaming reader writes bound values into its statements as literals: only a `?` outside strings,
// quoted identifiers and comments is a placeholder, integers become digits, strings go through the
// driver's escaping (here a stand-in that marks them), and a count that does not pair up is a bug.
#include <gtest/gtest.h>

#include "mysql/inline_params.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {
namespace {

std::string marked(std::string_view value) { return "<" + std::string(value) + ">"; }

TEST(InlineParams, IntegersBecomeDigitsAndStringsGoThroughTheEscaping) {
    const std::vector<KeyPart> params{std::int64_t{-42}, std::uint64_t{18446744073709551615u}, std::string("a'b")};
    EXPECT_EQ(inline_params("SELECT a FROM t WHERE a > ? AND b < ? AND c = ? LIMIT 10", params, marked),
              "SELECT a FROM t WHERE a > -42 AND b < 18446744073709551615 AND c = <a'b> LIMIT 10");
}

TEST(InlineParams, QuestionMarksInsideStringsIdentifiersAndCommentsAreText) {
    const std::string sql =
        "SELECT `wh?t` FROM t WHERE (x = 'a?b' OR y = \"c?\" OR z = 'it''s?' OR w = 'x\\'?') /* ? */ AND k > ? "
        "-- ?\nAND m < ? # ?\nLIMIT ?";
    const std::vector<KeyPart> params{std::int64_t{1}, std::int64_t{2}, std::int64_t{3}};
    EXPECT_EQ(inline_params(sql, params, marked),
              "SELECT `wh?t` FROM t WHERE (x = 'a?b' OR y = \"c?\" OR z = 'it''s?' OR w = 'x\\'?') /* ? */ AND k > 1 "
              "-- ?\nAND m < 2 # ?\nLIMIT 3");
}

TEST(InlineParams, ADashDashWithoutASpaceIsNotAComment) {
    EXPECT_EQ(inline_params("SELECT 5--? FROM t", {std::int64_t{3}}, marked), "SELECT 5--3 FROM t");
}

// The server (and the --where check) starts a comment at "--" and any control character, a form feed too.
TEST(InlineParams, ADashDashBeforeAnyControlCharacterIsAComment) {
    EXPECT_EQ(inline_params("SELECT a FROM t WHERE (a = 1 --\f why?\n) AND k > ?", {std::int64_t{7}}, marked),
              "SELECT a FROM t WHERE (a = 1 --\f why?\n) AND k > 7");
    EXPECT_EQ(inline_params("SELECT ? --\x01 ?'", {std::int64_t{7}}, marked), "SELECT 7 --\x01 ?'");
}

TEST(InlineParams, PlaceholdersAndValuesThatDoNotPairUpAreABug) {
    EXPECT_THROW(inline_params("SELECT ? + ?", {std::int64_t{1}}, marked), Error);
    EXPECT_THROW(inline_params("SELECT ?", {std::int64_t{1}, std::int64_t{2}}, marked), Error);
}

}  // namespace
}  // namespace rowpump::mysql
