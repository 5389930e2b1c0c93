#include "cli/partition_command.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "cli/command_help.hpp"
#include "cli/json_key.hpp"
#include "cli/schema_flags.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"

namespace rowpump::cli {

CLI::App* setup_partition(CLI::App& app, PartitionOptions& options) {
    auto* command = add_command(app, "partition", "Split a table into key ranges for parallel reading and print them",
                                {"rowpump partition --table orders --partitions 16",
                                 "rowpump partition --table orders --partitions 8 --strategy minmax --json",
                                 "rowpump partition --table events --key tenant_id,id --where \"tenant_id < 100\" "
                                 "--partitions 4"});
    add_source_options(*command, options.source);
    // The shared source flags include how pages are read; partitioning reads keys only, so the paging
    // strategy, page size and column list do not apply, and --strategy names the partitioner here.
    using enum OptionId;
    for (OptionId unused : {strategy, page_size, columns})
        command->remove_option(command->get_option(config::option(unused).cli));
    add_schema_options(*command, {{plan_partitions, options.partitions, required},
                                  {plan_strategy, options.strategy},
                                  {plan_json, options.json}});
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
    const ReadPlan plan = plan_read(mysql, options.source.read_spec());
    const PartitionPlan partitions = plan_partitions(mysql, plan, options.partitions, options.strategy);
    const std::string out = options.json ? as_json(partitions) : as_table(partitions, plan.null_key_rows);
    if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
        throw Error("cannot write to standard output");
    return 0;
}

}  // namespace rowpump::cli
