#include "cli/explain_command.hpp"

#include <algorithm>
#include <cstdio>

#include "cli/command_help.hpp"
#include "cli/plan_lines.hpp"
#include "cli/run_command.hpp"
#include "rowpump/job.hpp"
#include "rowpump/options.hpp"
#include "run/explain_job.hpp"

namespace rowpump::cli {

CLI::App* setup_explain(CLI::App& app, ExplainOptions& options) {
    auto* command = add_command(
        app, "explain", "Show, for each range of a YAML job, the SQL of its first page and the server's EXPLAIN of it",
        {"rowpump explain jobs/filtered_backfill.yaml",
         "rowpump explain jobs/redis_backfill.yaml --set source.strategy=deferred-join --set partitions.count=4"},
        "Reads no row and writes nothing. Look for type 'range' on the paging key's index.\n"
        "A lost connection or server restart is retried for " + std::to_string(MySqlOptions().retry_budget.count()) +
        " s from its first failure (the retry budget).");
    command->add_option("job", options.job_file, "The YAML job file")->required();
    add_override_option(*command, options.overrides);
    return command;
}

namespace {

void print_table(const TextTable& table) {
    std::vector<std::size_t> widths;
    for (const auto& column : table.columns) widths.push_back(column.size());
    for (const auto& row : table.rows)
        for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    auto print_row = [&](const std::vector<std::string>& cells) {
        std::printf("   ");
        for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
            const bool last = i + 1 == cells.size();
            std::printf(" %-*s%s", last ? 0 : static_cast<int>(widths[i]), cells[i].c_str(), last ? "" : " |");
        }
        std::printf("\n");
    };
    print_row(table.columns);
    std::printf("   ");
    for (std::size_t i = 0; i < widths.size(); ++i) std::printf("%s%s", std::string(widths[i] + 2, '-').c_str(), i + 1 < widths.size() ? "+" : "");
    std::printf("\n");
    for (const auto& row : table.rows) print_row(row);
}

}  // namespace

int run_explain(const ExplainOptions& options) {
    const JobSpec spec = load_job(options.job_file, options.overrides);
    const JobExplanation explanation = explain_job(spec);
    const ReadPlan& plan = *explanation.outline.plan;
    const PartitionPlan& partitions = explanation.outline.partitions;
    std::printf("%s; paging %s, %zu %s ranges, ~%llu rows\n", describe_key(plan).c_str(),
                to_string(plan.spec.strategy).c_str(), explanation.ranges.size(),
                to_string(partitions.strategy).c_str(), static_cast<unsigned long long>(partitions.estimated_rows));
    std::printf("%s\n", describe_planning(partitions).c_str());
    for (std::size_t i = 0; i < explanation.ranges.size(); ++i) {
        const auto& range = explanation.ranges[i];
        std::printf("\n%s\n", describe_range(i, range.partition).c_str());
        for (const auto& query : range.queries) {
            std::printf("  %s:\n    %s\n", query.label.c_str(), query.sql.c_str());
            std::string params;
            for (const auto& param : query.params) params += (params.empty() ? "" : ", ") + param;
            std::printf("  values: %s\n  EXPLAIN:\n", params.empty() ? "(none)" : params.c_str());
            print_table(query.explain);
        }
    }
    return 0;
}

}  // namespace rowpump::cli
