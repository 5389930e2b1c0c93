#include "cli/source_options.hpp"

#include "cli/schema_flags.hpp"
#include "paging/where_clause.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

using config::Spelling;

MySqlOptions SourceOptions::mysql() const {
    MySqlOptions options = mysql_url.empty() ? MySqlOptions::from_env() : MySqlOptions::from_url(mysql_url);
    timeouts.apply(options);
    if (!set_vars.empty())
        options.session_variables = parse_session_variables(set_vars, config::spelled(OptionId::set_vars, Spelling::cli));
    return options;
}

ReadSpec SourceOptions::read_spec() const {
    ReadSpec spec;
    spec.table = table;
    spec.key = key;
    spec.columns = columns;
    const std::string& where_flag = config::spelled(OptionId::where, Spelling::cli);
    check_where_clause(where, where_flag, where_flag + " 'a < 3 OR b = 1'");
    spec.where = where;
    spec.page_size = page_size;
    spec.strategy = strategy;
    if (page_timeout_seconds) spec.page_timeout = std::chrono::seconds(*page_timeout_seconds);
    spec.null_keys = null_keys;
    return spec;
}

void add_source_options(CLI::App& command, SourceOptions& options) {
    using enum OptionId;
    add_schema_options(command, {{mysql, options.mysql_url}, {table, options.table, required}, {key, options.key},
                                 {columns, options.columns}, {where, options.where}, {page_size, options.page_size},
                                 {strategy, options.strategy}, {null_keys, options.null_keys}});
    add_timeout_flags(command, options.timeouts);
    add_schema_options(command, {{page_timeout, options.page_timeout_seconds}, {set_vars, options.set_vars}});
}

}  // namespace rowpump::cli
