#pragma once
// The user's row filter is SQL by design, and every statement rowpump builds embeds it as
// "WHERE (<filter>) AND <key bounds> ... LIMIT ?". That is only safe while the filter stays inside its
// parentheses: a stray ')' would let it OR past the key bounds, a line comment would swallow them, a ';'
// would start a second statement and a bare '?' would shift every bound value. This lexer knows MariaDB's
// quotes, identifiers and comments well enough to accept exactly one balanced expression. It reads no
// meaning into the SQL; the server still checks that (read_plan.cpp runs the filter once with LIMIT 0).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rowpump {

struct WhereProblem {
    enum class Kind {
        empty,               // nothing but spaces and comments
        unopened_paren,      // a ')' that closes nothing
        unclosed_paren,      // a '(' still open at the end
        unterminated_quote,  // a '...', "..." or `...` without its closing quote
        unterminated_comment,
        nested_comment,      // '/*' inside a block comment: servers disagree on where it ends
        executable_comment,  // /*! ... */ and /*M! ... */: MariaDB runs what they hold
        comment_to_end,      // '-- ' or '#' with no newline after it: it would swallow what follows
        semicolon,           // a second statement
        placeholder,         // a '?' outside quotes: it would take one of rowpump's bound values
    };
    Kind kind;
    std::size_t character;  // 1-based position (in characters, not bytes) where the problem starts
    // The filter is fine with backslash escapes in strings but not without them (sql_mode
    // NO_BACKSLASH_ESCAPES or ANSI_QUOTES), which the server may use: 'it\'s' must be written 'it''s'.
    bool without_backslash_escapes = false;
};

// The first problem of `where`, or nullopt when it is one balanced expression whatever the server's
// sql_mode. An empty string is no filter and has no problem.
std::optional<WhereProblem> find_where_problem(std::string_view where);

// One line for the problem: what is wrong, where, and what to do, e.g. "unbalanced ')' at character 5:
// it closes a parenthesis the condition did not open; give one condition, e.g. --where 'a < 3 OR b = 1'".
// `example` shows a good filter the way the user gives it (a flag or a YAML field).
std::string describe(const WhereProblem& problem, std::string_view example);

// Throws UsageError "<name>: <describe(problem, example)>" when `where` has a problem.
void check_where_clause(std::string_view where, std::string_view name, std::string_view example);

}  // namespace rowpump
