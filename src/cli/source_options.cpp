#include "cli/source_options.hpp"

#include "cli/number_flags.hpp"
#include "paging/where_clause.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

MySqlOptions SourceOptions::mysql() const {
    MySqlOptions options = mysql_url.empty() ? MySqlOptions::from_env() : MySqlOptions::from_url(mysql_url);
    timeouts.apply(options);
    if (!set_vars.empty()) options.session_variables = parse_session_variables(set_vars, "--set-vars");
    return options;
}

ReadSpec SourceOptions::read_spec() const {
    ReadSpec spec;
    spec.table = table;
    spec.key = key;
    spec.columns = columns;
    check_where_clause(where, "--where", "--where 'a < 3 OR b = 1'");
    spec.where = where;
    spec.page_size = page_size;
    spec.strategy = parse_strategy(strategy);
    if (page_timeout_seconds) spec.page_timeout = std::chrono::seconds(*page_timeout_seconds);
    if (null_keys == "refuse") spec.null_keys = NullKeys::refuse;
    else if (null_keys == "first") spec.null_keys = NullKeys::read_first;
    else throw UsageError("unknown --null-keys '" + null_keys + "': expected refuse or first");
    return spec;
}

void add_source_options(CLI::App& command, SourceOptions& options) {
    command.add_option("--mysql", options.mysql_url,
                       "Source URL mysql://user[:pass]@host:port/db (default: $ROWPUMP_MYSQL_URL; a password may "
                       "come from $ROWPUMP_MYSQL_PASSWORD or the file in $ROWPUMP_MYSQL_PASSWORD_FILE)");
    command.add_option("--table", options.table, "Table to read, as name or schema.name")->required();
    command.add_option("--key", options.key,
                       "Paging key column(s), comma-separated (default: the primary key, else the smallest unique "
                       "NOT NULL index); a non-unique column gets the primary key appended")
        ->delimiter(',');
    command.add_option("--columns", options.columns, "Columns to read, comma-separated (default: all)")->delimiter(',');
    command.add_option("--where", options.where,
                       "SQL condition the rows must meet: one expression with balanced parentheses, no ';' or '?' "
                       "outside quotes (note LIKE '%?%' is fine), and a -- or # comment must end in a newline");
    command
        .add_option("--page-size", options.page_size,
                    "Rows per page (default: " + std::to_string(ReadSpec{}.page_size) + ")")
        ->check(whole_number(1, 1'000'000));
    command.add_option("--strategy", options.strategy, "Paging strategy")
        ->check(CLI::IsMember({"keyset", "deferred-join", "id-in", "offset"}));
    command.add_option("--null-keys", options.null_keys,
                       "Rows with a NULL key: refuse (say how many) or first (read them first, by primary key)")
        ->check(CLI::IsMember({"refuse", "first"}));
    const ReadSpec read_defaults;
    add_timeout_flags(command, options.timeouts);
    command.add_option("--page-timeout", options.page_timeout_seconds,
                       "Seconds the server lets one page query run (max_statement_time), 0 no limit (default " +
                           std::to_string(read_defaults.page_timeout.count()) + ")")
        ->check(CLI::Range(std::size_t{0}, std::size_t{86400}));
    command.add_option("--set-vars", options.set_vars,
                       "Session variables for every source connection, name=value,... (e.g. "
                       "innodb_lock_wait_timeout=5,max_statement_time=30); a value is a number, DEFAULT or a plain "
                       "word. Checked before anything is read: a name the server does not know is refused");
}

}  // namespace rowpump::cli
