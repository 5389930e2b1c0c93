#include "cli/partition_command.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "cli/json_key.hpp"
#include "cli/number_flags.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"

namespace rowpump::cli {

CLI::App* setup_partition(CLI::App& app, PartitionOptions& options) {
    auto* command = app.add_subcommand("partition", "Split a table into key ranges for parallel reading and print them");
    command->footer(
        "Examples:\n"
        "  rowpump partition --table orders --partitions 16\n"
        "  rowpump partition --table orders --partitions 8 --strategy minmax --json\n"
        "  rowpump partition --table events --key tenant_id,id --where \"tenant_id < 100\" --partitions 4");
    add_source_options(*command, options.source);
    // The shared source flags include how pages are read; partitioning reads keys only, so the paging
    // strategy, page size and column list do not apply, and --strategy names the partitioner here.
    for (const char* unused : {"--strategy", "--page-size", "--columns"}) command->remove_option(command->get_option(unused));
    command->add_option("--partitions", options.partitions, "Number of ranges (fewer when the table has fewer rows)")
        ->required()
        ->check(whole_number(1, 1'000'000));
    command->add_option("--strategy", options.strategy,
                        "balanced (default): about equal rows per range, any key. A key that starts with an integer, "
                        "a date or datetime, or text, on a table of more than 100,000 rows and without --where, is "
                        "planned from index "
                        "estimates (a fraction of a percent of the rows read); otherwise the key's index is read to "
                        "place the boundaries: (2N-1)/N times the rows up to 10M rows or with --where, about once "
                        "above. minmax: equal key widths between the lowest and highest key, a single integer key, "
                        "instant. The last line says how the plan was made")
        ->check(CLI::IsMember({"balanced", "minmax"}));
    command->add_flag("--json", options.json, "Print a JSON array of {lo, hi, estimated_rows}; open bounds are null");
    return command;
}

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

std::string as_json(const PartitionPlan& plan) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartArray();
    for (const auto& partition : plan.partitions) {
        writer.StartObject();
        writer.Key("lo");
        write_key(writer, partition.range.lo);
        writer.Key("hi");
        write_key(writer, partition.range.hi);
        writer.Key("estimated_rows");
        writer.Uint64(partition.estimated_rows);
        writer.EndObject();
    }
    writer.EndArray();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string pad(const std::string& text, std::size_t width) {
    return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

// One line per range, columns aligned: #, from (inclusive), to (exclusive), estimated rows.
std::string as_table(const PartitionPlan& plan, std::uint64_t null_key_rows) {
    std::vector<std::array<std::string, 4>> rows{{"#", "from (inclusive)", "to (exclusive)", "estimated rows"}};
    for (std::size_t i = 0; i < plan.partitions.size(); ++i) {
        const auto& partition = plan.partitions[i];
        rows.push_back({std::to_string(i + 1), partition.range.lo ? to_string(*partition.range.lo) : "start",
                        partition.range.hi ? to_string(*partition.range.hi) : "end",
                        std::to_string(partition.estimated_rows)});
    }
    std::array<std::size_t, 4> widths{};
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) line += c + 1 < row.size() ? pad(row[c], widths[c] + 2) : row[c];
        out += line + "\n";
    }
    out += std::to_string(plan.partitions.size()) + " ranges (" + to_string(plan.strategy) + "), about " +
           std::to_string(plan.estimated_rows) + " rows" +
           (null_key_rows ? ", of which " + std::to_string(null_key_rows) + " with a NULL key are read by range 1" : "") +
           "\n";
    out += describe_planning(plan) + "\n";
    return out;
}

}  // namespace

int run_partition(const PartitionOptions& options) {
    const MySqlOptions mysql = options.source.mysql();
    const PartitionStrategy strategy = parse_partition_strategy(options.strategy);
    const ReadPlan plan = plan_read(mysql, options.source.read_spec());
    const PartitionPlan partitions = plan_partitions(mysql, plan, options.partitions, strategy);
    const std::string out = options.json ? as_json(partitions) : as_table(partitions, plan.null_key_rows);
    if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
        throw Error("cannot write to standard output");
    return 0;
}

}  // namespace rowpump::cli
