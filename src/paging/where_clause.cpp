#include "paging/where_clause.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "rowpump/error.hpp"

namespace rowpump {

namespace {

using Kind = WhereProblem::Kind;

// The server's rule for "-- ": the dashes start a comment only when a space or control character (or
// the end) follows them, so "1--1" stays arithmetic.
bool space_or_control(unsigned char c) { return c <= ' ' || c == 0x7f; }

class Scanner {
public:
    Scanner(std::string_view sql, bool backslash_escapes) : sql_(sql), backslash_escapes_(backslash_escapes) {}

    std::optional<WhereProblem> first_problem() {
        std::vector<std::size_t> open_parens;
        bool has_content = false;
        std::size_t at = 0;
        while (at < sql_.size()) {
            const char c = sql_[at];
            if (space_or_control(static_cast<unsigned char>(c))) {
                ++at;
                continue;
            }
            if (c == '\'' || c == '"' || c == '`') {
                const auto end = quoted_end(at);
                if (!end) return problem(Kind::unterminated_quote, at);
                has_content = true;
                at = *end;
                continue;
            }
            if (starts_line_comment(at)) {
                const auto newline = sql_.find('\n', at);
                if (newline == std::string_view::npos) return problem(Kind::comment_to_end, at);
                at = newline + 1;
                continue;
            }
            if (sql_.substr(at, 2) == "/*") {
                if (sql_.substr(at + 2, 1) == "!" || sql_.substr(at + 2, 2) == "M!")
                    return problem(Kind::executable_comment, at);
                const auto close = sql_.find("*/", at + 2);
                if (close == std::string_view::npos) return problem(Kind::unterminated_comment, at);
                const auto inner = sql_.find("/*", at + 2);
                if (inner < close) return problem(Kind::nested_comment, inner);
                at = close + 2;
                continue;
            }
            has_content = true;
            if (c == '(') open_parens.push_back(at);
            if (c == ')') {
                if (open_parens.empty()) return problem(Kind::unopened_paren, at);
                open_parens.pop_back();
            }
            if (c == ';') return problem(Kind::semicolon, at);
            if (c == '?') return problem(Kind::placeholder, at);
            ++at;
        }
        if (!open_parens.empty()) return problem(Kind::unclosed_paren, open_parens.back());
        if (!has_content) return problem(Kind::empty, 0);
        return std::nullopt;
    }

private:
    bool starts_line_comment(std::size_t at) const {
        if (sql_[at] == '#') return true;
        if (sql_.substr(at, 2) != "--") return false;
        return at + 2 == sql_.size() || space_or_control(static_cast<unsigned char>(sql_[at + 2]));
    }

    // Just past the quote that closes the one at `at`; a doubled quote is part of the text, and so is
    // the character after a backslash in strings (not in `identifiers`) when backslashes escape.
    std::optional<std::size_t> quoted_end(std::size_t at) const {
        const char quote = sql_[at];
        const bool escapes = backslash_escapes_ && quote != '`';
        for (std::size_t i = at + 1; i < sql_.size(); ++i) {
            if (escapes && sql_[i] == '\\') {
                ++i;
                continue;
            }
            if (sql_[i] != quote) continue;
            if (i + 1 < sql_.size() && sql_[i + 1] == quote) {
                ++i;
                continue;
            }
            return i + 1;
        }
        return std::nullopt;
    }

    // Positions count characters, not bytes: UTF-8 continuation bytes do not start one.
    WhereProblem problem(Kind kind, std::size_t byte) const {
        std::size_t character = 1;
        for (std::size_t i = 0; i < byte; ++i)
            if ((static_cast<unsigned char>(sql_[i]) & 0xC0) != 0x80) ++character;
        return {kind, character, !backslash_escapes_};
    }

    std::string_view sql_;
    bool backslash_escapes_;
};

}  // namespace

std::optional<WhereProblem> find_where_problem(std::string_view where) {
    if (where.empty()) return std::nullopt;
    // The server's sql_mode decides whether a backslash escapes a quote; the filter must stay one
    // expression either way.
    if (auto problem = Scanner(where, true).first_problem()) return problem;
    return Scanner(where, false).first_problem();
}

namespace {

// What each problem is called and what to do about it: "<what> at character N<after>: <advice>"; advice
// that ends in "; " is completed with an example of one condition.
struct Wording {
    Kind kind;
    const char* what;
    const char* after;
    const char* advice;
};

constexpr Wording wordings[] = {
    {Kind::unopened_paren, "unbalanced ')'", "", "it closes a parenthesis the condition did not open; "},
    {Kind::unclosed_paren, "unbalanced '('", "", "it is never closed; "},
    {Kind::unterminated_quote, "unterminated quote", "", "close the string or `identifier`"},
    {Kind::unterminated_comment, "unterminated comment", "", "end it with */"},
    {Kind::nested_comment, "a comment inside a comment", "", "servers disagree on where it ends; remove the inner /*"},
    {Kind::executable_comment, "an executable comment /*! ... */", "",
     "the server runs what it holds; write the condition without it"},
    {Kind::comment_to_end, "a comment", " runs to the end",
     "it would swallow what rowpump appends to the condition; end it with a newline, or write /* ... */"},
    {Kind::semicolon, "';'", "", "the condition must be one expression, not statements; "},
    {Kind::placeholder, "'?'", "", "the condition cannot have placeholders; write the value itself"},
};

}  // namespace

std::string describe(const WhereProblem& problem, std::string_view example) {
    const std::string one_condition = "give one condition, e.g. " + std::string(example);
    if (problem.kind == Kind::empty)
        return "the condition is empty; " + one_condition + ", or leave it out to read every row";
    const Wording* wording = std::find_if(std::begin(wordings), std::end(wordings),
                                          [&](const Wording& w) { return w.kind == problem.kind; });
    if (wording == std::end(wordings)) return "a problem at character " + std::to_string(problem.character);
    std::string what =
        std::string(wording->what) + " at character " + std::to_string(problem.character) + wording->after;
    std::string advice = wording->advice;
    if (advice.ends_with("; ")) advice += one_condition;
    if (problem.without_backslash_escapes) {
        what += " when backslashes are not escapes (the server's sql_mode may have NO_BACKSLASH_ESCAPES or "
                "ANSI_QUOTES)";
        advice = "write a quote inside a string doubled, as in 'it''s', not with a backslash";
    }
    return what + ": " + advice;
}

void check_where_clause(std::string_view where, std::string_view name, std::string_view example) {
    if (auto problem = find_where_problem(where))
        throw UsageError(std::string(name) + ": " + describe(*problem, example));
}

}  // namespace rowpump
