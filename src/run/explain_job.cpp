#include "run/explain_job.hpp"

#include "mysql/connection.hpp"
#include "paging/page_sql.hpp"

namespace rowpump {

namespace {

std::string param_text(const mysql::Param& param) {
    if (const auto* value = std::get_if<std::int64_t>(&param)) return std::to_string(*value);
    if (const auto* value = std::get_if<std::uint64_t>(&param)) return std::to_string(*value);
    std::string out = "'";
    for (char c : std::get<std::string>(param)) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

TextTable explain(mysql::Connection& connection, const SqlFragment& query) {
    auto result = connection.query("EXPLAIN " + query.sql, query.params);
    const auto width = result.column_count();
    TextTable table;
    for (std::size_t column = 1; column <= width; ++column) table.columns.push_back(result.label(column));
    while (result.next()) {
        std::vector<std::string> row;
        for (std::size_t column = 1; column <= width; ++column)
            row.push_back(result.is_null(column) ? "NULL" : result.text(column));
        table.rows.push_back(std::move(row));
    }
    return table;
}

ExplainedQuery explained(mysql::Connection& connection, const PlannedQuery& planned) {
    ExplainedQuery out{planned.label, planned.query.sql, {}, explain(connection, planned.query)};
    for (const auto& param : planned.query.params) out.params.push_back(param_text(param));
    return out;
}

std::vector<KeyValue> first_page_keys(mysql::Connection& connection, const PageSql& sql, const SqlFragment& query) {
    const auto& columns = sql.key_columns(Pass::main);
    std::vector<KeyValue> keys;
    auto result = connection.query(query.sql, query.params);
    while (result.next()) {
        KeyValue key;
        for (std::uint32_t i = 0; i < columns.size(); ++i)
            key.push_back(key_part_from_text(columns[i], result.text(i + 1)));
        keys.push_back(std::move(key));
    }
    return keys;
}

}  // namespace

JobExplanation explain_job(const JobSpec& spec) {
    JobExplanation out{outline_job(spec), {}};
    mysql::Connection connection(spec.mysql);
    const PageSql sql(*out.outline.plan);
    for (const auto& range : out.outline.ranges) {
        ExplainedRange explained_range{range.partition, {}};
        for (const auto& planned : range.first_page)
            explained_range.queries.push_back(explained(connection, planned));
        if (out.outline.plan->spec.strategy == PagingStrategy::id_in) {
            // Phase 2's plan depends on the keys it is given: the page's real ones, as the reader would send.
            const std::vector<KeyValue> keys = first_page_keys(connection, sql, range.first_page.back().query);
            if (!keys.empty())
                explained_range.queries.push_back(
                    explained(connection, {"first page, phase 2 (the rows of its " + std::to_string(keys.size()) +
                                               " keys)",
                                           sql.rows_with_keys(Pass::main, keys)}));
        }
        out.ranges.push_back(std::move(explained_range));
    }
    return out;
}

}  // namespace rowpump
