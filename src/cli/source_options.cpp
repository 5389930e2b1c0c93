#include "cli/source_options.hpp"

#include "cli/number_flags.hpp"
#include "paging/where_clause.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

MySqlOptions SourceOptions::mysql() const {
    return mysql_url.empty() ? MySqlOptions::from_env() : MySqlOptions::from_url(mysql_url);
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
                       "(a -- or # comment must end in a newline)");
    command.add_option("--page-size", options.page_size, "Rows per page")->check(whole_number(1, 1'000'000));
    command.add_option("--strategy", options.strategy, "Paging strategy")
        ->check(CLI::IsMember({"keyset", "deferred-join", "id-in", "offset"}));
    command.add_option("--null-keys", options.null_keys,
                       "Rows with a NULL key: refuse (say how many) or first (read them first, by primary key)")
        ->check(CLI::IsMember({"refuse", "first"}));
}

}  // namespace rowpump::cli
