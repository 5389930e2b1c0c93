#include "job/explain_job.hpp"

#include "mysql/connection.hpp"
#include "paging/key_predicate.hpp"
#include "paging/page_size.hpp"
#include "paging/page_sql.hpp"
#include "run/job_plan.hpp"

namespace rowpump::job {

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

ExplainedQuery explained(mysql::Connection& connection, std::string label, const SqlFragment& query) {
    ExplainedQuery out{std::move(label), query.sql, {}, explain(connection, query)};
    for (const auto& param : query.params) out.params.push_back(param_text(param));
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

// The range's first page, as PageReader would run it.
std::vector<ExplainedQuery> first_pages(mysql::Connection& connection, const ReadPlan& plan, const PageSql& sql,
                                        const KeyRange& range) {
    const std::size_t limit = PageSizer(plan.spec).size();
    std::vector<ExplainedQuery> out;
    if (has_null_key_pass(plan, range))
        out.push_back(explained(connection, "first page of the NULL-key pass (by primary key)",
                                sql.page(Pass::null_keys, first_page_bounds(Pass::null_keys, range), limit, 0)));
    const SqlFragment first = sql.page(Pass::main, first_page_bounds(Pass::main, range), limit, 0);
    if (plan.spec.strategy != PagingStrategy::id_in) {
        out.push_back(explained(connection, "first page", first));
        return out;
    }
    out.push_back(explained(connection, "first page, phase 1 (its keys)", first));
    // Phase 2's plan depends on the keys it is given: the page's real ones, as the reader would send.
    const std::vector<KeyValue> keys = first_page_keys(connection, sql, first);
    if (!keys.empty())
        out.push_back(explained(connection,
                                "first page, phase 2 (the rows of its " + std::to_string(keys.size()) + " keys)",
                                sql.rows_with_keys(Pass::main, keys)));
    return out;
}

}  // namespace

JobExplanation explain_job(const JobSpec& spec) {
    const ReadPlan plan = plan_job_read(spec);
    const PartitionPlan partitions = plan_job_partitions(spec, plan, worker_count(spec));

    JobExplanation out;
    out.table = plan.table.quoted_name();
    out.key = plan.key.columns;
    out.key_reason = plan.key.reason;
    out.strategy = plan.spec.strategy;
    out.partition_strategy = partitions.strategy;
    out.estimated_rows = partitions.estimated_rows;
    out.planning = describe_planning(partitions);
    mysql::Connection connection(spec.mysql);
    const PageSql sql(plan);
    for (const auto& partition : partitions.partitions)
        out.ranges.push_back({partition, first_pages(connection, plan, sql, partition.range)});
    return out;
}

}  // namespace rowpump::job
