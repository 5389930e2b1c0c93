#include "mysql/inline_params.hpp"

#include <charconv>

#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

// The end of the quoted run that starts at `at` (a ', " or `): past its closing quote. A doubled quote
// stays inside; a backslash escapes the next character in strings (the --where lexer has already refused
// text where the server's NO_BACKSLASH_ESCAPES would read it otherwise).
std::size_t end_of_quoted(std::string_view sql, std::size_t at) {
    const char quote = sql[at];
    for (std::size_t i = at + 1; i < sql.size(); ++i) {
        if (sql[i] == '\\' && quote != '`') {
            ++i;
        } else if (sql[i] == quote) {
            if (i + 1 < sql.size() && sql[i + 1] == quote) ++i;
            else return i + 1;
        }
    }
    return sql.size();
}

std::size_t end_of_comment(std::string_view sql, std::size_t at) {
    if (sql[at] == '/') {
        const std::size_t close = sql.find("*/", at + 2);
        return close == std::string_view::npos ? sql.size() : close + 2;
    }
    const std::size_t newline = sql.find('\n', at);
    return newline == std::string_view::npos ? sql.size() : newline + 1;
}

bool starts_comment(std::string_view sql, std::size_t at) {
    if (sql[at] == '#') return true;
    if (sql.substr(at, 2) == "/*") return true;
    // The server's rule, which the --where check follows too (paging/where_clause.cpp): the dashes start a
    // comment when a space or control character follows them, or nothing does.
    if (sql.substr(at, 2) != "--") return false;
    if (at + 2 == sql.size()) return true;
    const auto next = static_cast<unsigned char>(sql[at + 2]);
    return next <= ' ' || next == 0x7f;
}

void append_literal(std::string& out, const KeyPart& value, const QuoteString& quote_string) {
    char digits[24];
    if (const auto* number = std::get_if<std::int64_t>(&value)) {
        out.append(digits, std::to_chars(digits, digits + sizeof digits, *number).ptr);
    } else if (const auto* positive = std::get_if<std::uint64_t>(&value)) {
        out.append(digits, std::to_chars(digits, digits + sizeof digits, *positive).ptr);
    } else {
        out += quote_string(std::get<std::string>(value));
    }
}

}  // namespace

std::string inline_params(std::string_view sql, const std::vector<KeyPart>& params, const QuoteString& quote_string) {
    std::string out;
    out.reserve(sql.size() + params.size() * 8);
    std::size_t next = 0;
    for (std::size_t at = 0; at < sql.size();) {
        const char c = sql[at];
        std::size_t end = at + 1;
        if (c == '\'' || c == '"' || c == '`') {
            end = end_of_quoted(sql, at);
        } else if (starts_comment(sql, at)) {
            end = end_of_comment(sql, at);
        } else if (c == '?') {
            if (next == params.size())
                throw Error("bug: a statement has more placeholders than the " + std::to_string(params.size()) +
                            " values given");
            append_literal(out, params[next++], quote_string);
            at = end;
            continue;
        }
        out.append(sql.substr(at, end - at));
        at = end;
    }
    if (next != params.size())
        throw Error("bug: a statement has " + std::to_string(next) + " placeholders for " +
                    std::to_string(params.size()) + " values");
    return out;
}

}  // namespace rowpump::mysql
