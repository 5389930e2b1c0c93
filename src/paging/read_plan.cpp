#include <algorithm>

#include "config/choices.hpp"
#include "config/option_error.hpp"
#include "log.hpp"
#include "mysql/connection.hpp"
#include "paging/key_predicate.hpp"
#include "paging/where_clause.hpp"
#include "rowpump/error.hpp"
#include "rowpump/reader.hpp"
#include "table/describe.hpp"

namespace rowpump {

// The names are config/choices.hpp's table, the one the command line and the job file read.
PagingStrategy parse_strategy(const std::string& name) {
    return config::parse_choice_or_throw<PagingStrategy>(name, "paging strategy");
}

std::string to_string(PagingStrategy strategy) { return std::string(config::choice_name(strategy, "?")); }

std::vector<Column> ReadPlan::key_columns() const {
    std::vector<Column> out;
    for (const auto& name : key.columns) out.push_back(table.column(name));
    return out;
}

namespace {

void check_spec(const ReadSpec& spec) {
    // The command line and job files check the filter where the user gave it; this covers programs.
    check_where_clause(spec.where, "where", "\"a < 3 OR b = 1\"");
    if (spec.page_size == 0) throw UsageError("page size must be at least 1");
    if (spec.target_page_time.count() > 0 && (spec.min_page_size == 0 || spec.min_page_size > spec.max_page_size))
        throw UsageError("adaptive page size needs 1 <= min page size <= max page size");
}

std::vector<Column> resolve_columns(const TableInfo& table, const std::vector<std::string>& names) {
    if (names.empty()) return table.columns;
    std::vector<Column> out;
    for (const auto& name : names) {
        if (std::any_of(out.begin(), out.end(), [&](const Column& c) { return c.name == name; }))
            throw config::OptionError({"column '" + name + "' is listed twice in ", config::OptionId::columns});
        out.push_back(table.column(name));
    }
    return out;
}

// The user's filter is SQL by design. Running it once with LIMIT 0 turns a typo into a usage error
// before anything is written.
void check_filter(mysql::Connection& connection, const ReadPlan& plan) {
    if (plan.spec.where.empty()) return;
    const std::string sql = "SELECT 1 FROM " + plan.table.quoted_name() + " WHERE (" + plan.spec.where + ") LIMIT 0";
    try {
        connection.query(sql);
    } catch (const DbError& error) {
        if (error.is_transient()) throw;
        throw config::OptionError({"invalid ", config::OptionId::where, " '" + plan.spec.where + "': " + error.what()});
    }
}

std::uint64_t count_null_keys(mysql::Connection& connection, const ReadPlan& plan) {
    std::string sql = "SELECT COUNT(*) FROM " + plan.table.quoted_name() + " WHERE " + key_has_null(plan.key_columns());
    if (!plan.spec.where.empty()) sql += " AND (" + plan.spec.where + ")";
    auto result = connection.query(sql);
    result.next();
    return result.uint64(1);
}

}  // namespace

ReadPlan plan_read(const MySqlOptions& mysql, const ReadSpec& spec) {
    check_spec(spec);
    mysql::Connection connection(mysql);
    ReadPlan plan;
    plan.spec = spec;
    plan.table = describe_table(connection, spec.table);
    plan.key = choose_paging_key(plan.table, spec.key);
    plan.columns = resolve_columns(plan.table, spec.columns);
    check_filter(connection, plan);
    if (plan.key.nullable) {
        plan.null_key_rows = count_null_keys(connection, plan);
        if (plan.null_key_rows > 0 && spec.null_keys == NullKeys::refuse) {
            std::string names;
            for (const auto& column : plan.key.columns) names += (names.empty() ? "" : ", ") + column;
            throw config::OptionError({std::to_string(plan.null_key_rows) + " rows of " + plan.table.quoted_name() +
                                           " have NULL in key (" + names + "), which cannot be paged by '>': pass ",
                                       config::OptionId::null_keys, " first to read them in a separate pass, exclude "
                                       "them with ", config::OptionId::where, ", or choose another ",
                                       config::OptionId::key});
        }
        if (plan.null_key_rows > 0 && plan.table.primary_key.empty())
            throw config::OptionError({"rows with NULL keys in " + plan.table.quoted_name() +
                                           " can only be read by the primary key, and the table has none: exclude "
                                           "them with ",
                                       config::OptionId::where, " or choose another ", config::OptionId::key});
    }
    if (spec.strategy == PagingStrategy::offset)
        log().warn("the offset strategy reads every skipped row again on each page; it is a benchmark baseline, "
                   "use keyset for real work");
    log().debug("paging {} by ({}): {}", plan.table.quoted_name(), column_list(KeyExpression::of(plan.key_columns())),
                plan.key.reason);
    return plan;
}

}  // namespace rowpump
