// The --where lexer: one balanced expression is accepted however it uses quotes, identifiers and
// comments; anything that could leave the parentheses rowpump puts around it is refused, at the right
// character, whatever the server's sql_mode. No server.
#include "paging/where_clause.hpp"

#include <gtest/gtest.h>

#include <string>

#include "rowpump/error.hpp"

namespace rowpump {
namespace {

using Kind = WhereProblem::Kind;

void expect_accepted(const std::string& where) {
    const auto problem = find_where_problem(where);
    EXPECT_FALSE(problem) << where << ": " << (problem ? describe(*problem, "x") : "");
}

void expect_problem(const std::string& where, Kind kind, std::size_t character) {
    const auto problem = find_where_problem(where);
    ASSERT_TRUE(problem) << where << " was accepted";
    EXPECT_EQ(problem->kind, kind) << where << ": " << describe(*problem, "x");
    EXPECT_EQ(problem->character, character) << where << ": " << describe(*problem, "x");
}

TEST(WhereClause, AcceptsOneBalancedExpression) {
    expect_accepted("id < 3");
    expect_accepted("(a = 1 OR (b = 2 AND (c IN (1, 2, 3))))");
    expect_accepted("status = 'paid' AND created_at >= NOW() - INTERVAL 1 DAY");
    expect_accepted("1--1 = 2");  // no space after the dashes: arithmetic, not a comment
    expect_accepted("a - -1 > 0");
}

TEST(WhereClause, ParenthesesInsideQuotesAndCommentsDoNotCount) {
    expect_accepted("note = ')' OR note = '('");
    expect_accepted("note = \") OR (1=1\"");
    expect_accepted("`we)ird(` = 1");
    expect_accepted("a = 1 /* ) OR ( */ AND b = 2");
    expect_accepted("a = 1 -- ) closing here would escape\n AND b = 2");
    expect_accepted("a = 1 # ) and here\n AND b = 2");
    expect_accepted("note = ';' OR note = '?'");
    expect_accepted("a = 1 /* ; ? */");
}

TEST(WhereClause, EscapedQuotesStayInsideTheString) {
    expect_accepted("name = 'it''s (not) closed'");
    expect_accepted("name = \"say \"\"hi\"\" )\"");
    expect_accepted("`odd``name)` = 1");
    expect_accepted("name LIKE 'a\\_b%'");  // a backslash that escapes no quote reads the same in every mode
    expect_accepted("name = 'back\\\\'");  // one escaped backslash, or two plain ones: closed either way
}

// Each condition rowpump refuses, what is wrong with it and the character (1-based) where it is.
struct Refused {
    const char* where;
    Kind kind;
    std::size_t character;
};

const Refused refused[] = {
    // a closing parenthesis with no opener
    {"id<3) OR (1=1", Kind::unopened_paren, 5},
    {"1=1) -- ", Kind::unopened_paren, 4},
    {"(a = 1)) OR (b = 2", Kind::unopened_paren, 8},
    // unclosed parentheses
    {"(a = 1", Kind::unclosed_paren, 1},
    {"a IN (1, (2", Kind::unclosed_paren, 10},
    {"a = ')' OR (b = 1", Kind::unclosed_paren, 12},
    // unterminated quotes and identifiers
    {"a = 'open", Kind::unterminated_quote, 5},
    {"a = \"open", Kind::unterminated_quote, 5},
    {"`open = 1", Kind::unterminated_quote, 1},
    {"a = 'ends in a backslash\\'", Kind::unterminated_quote, 5},
    // comments that swallow the rest
    {"a = 1 -- the end", Kind::comment_to_end, 7},
    {"a = 1 --", Kind::comment_to_end, 7},
    {"a = 1 # the end", Kind::comment_to_end, 7},
    {"a = 1 -- fine\n OR b = 2 # not fine", Kind::comment_to_end, 25},
    // bad block comments
    {"a = 1 /* open", Kind::unterminated_comment, 7},
    {"a = 1 /* outer /* inner */ still */", Kind::nested_comment, 16},
    {"a = 1 /*! OR 1=1 */", Kind::executable_comment, 7},
    {"a = 1 /*M!100000 OR 1=1 */", Kind::executable_comment, 7},
    // second statements and placeholders
    {"a = 1; DROP TABLE t", Kind::semicolon, 6},
    {"id > ?", Kind::placeholder, 6},
    // an empty condition
    {"   ", Kind::empty, 1},
    {"/* nothing */", Kind::empty, 1},
    {"-- nothing\n", Kind::empty, 1},
    // positions count characters, not bytes
    {"name = 'é') OR (1=1", Kind::unopened_paren, 11},
};

TEST(WhereClause, RejectsEachProblemAtItsCharacter) {
    for (const Refused& condition : refused) expect_problem(condition.where, condition.kind, condition.character);
}

TEST(WhereClause, RejectsAQuoteThatOnlyBackslashEscapesKeepClosed) {
    // With NO_BACKSLASH_ESCAPES the string ends at \' and ") OR (1=1" escapes the parentheses.
    const auto problem = find_where_problem("a = 'x\\' OR 1=1) OR (1=1 OR '");
    ASSERT_TRUE(problem);
    EXPECT_TRUE(problem->without_backslash_escapes);
    EXPECT_EQ(problem->kind, Kind::unopened_paren);
    EXPECT_NE(describe(*problem, "x").find("NO_BACKSLASH_ESCAPES"), std::string::npos);
    expect_problem("name = 'it\\'s'", Kind::unterminated_quote, 14);
}

TEST(WhereClause, NoConditionIsNoFilter) { EXPECT_FALSE(find_where_problem("")); }

TEST(WhereClause, TheErrorIsOneLineNamingTheFlagAndWhatToDo) {
    try {
        check_where_clause("id<3) OR (1=1", "--where", "--where 'a < 3 OR b = 1'");
        FAIL() << "accepted";
    } catch (const UsageError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "--where: unbalanced ')' at character 5: it closes a parenthesis the condition did not open; give "
                  "one condition, e.g. --where 'a < 3 OR b = 1'");
        EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
    }
    EXPECT_NO_THROW(check_where_clause("a < 3 OR b = 1", "--where", "x"));
}

}  // namespace
}  // namespace rowpump
