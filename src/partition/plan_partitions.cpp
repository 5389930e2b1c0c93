#include <algorithm>
#include <chrono>

#include "config/choices.hpp"
#include "mysql/connection.hpp"
#include "partition/key_index.hpp"
#include "partition/planners.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"

namespace rowpump {

// The names are config/choices.hpp's table, the one the command line and the job file read.
PartitionStrategy parse_partition_strategy(const std::string& name) {
    return config::parse_choice_or_throw<PartitionStrategy>(name, "partition strategy");
}

std::string to_string(PartitionStrategy strategy) { return std::string(config::choice_name(strategy, "?")); }

std::string describe_planning(const PartitionPlan& plan) {
    return "planned in " + std::to_string(plan.planning_time.count()) + " ms from " + plan.method + "; " +
           (plan.frozen_upper_bound ? "the last range stops at key " + to_string(*plan.frozen_upper_bound) +
                                          ", the largest when planned (--follow also reads rows added above it)"
                                    : "the last range is open above");
}

namespace {
constexpr std::chrono::seconds planning_read_timeout{600};
}  // namespace

PartitionPlan plan_partitions(const MySqlOptions& mysql, const ReadPlan& plan, std::size_t count,
                              PartitionStrategy strategy) {
    // Checked before connecting: a usage error should not wait for a server.
    if (count == 0) throw UsageError("the number of partitions must be at least 1");
    // The balanced planner's exact count and boundary walk take longer as the table grows: a statement
    // that legitimately runs past the socket's read timeout would be mistaken for a frozen server.
    MySqlOptions planning = mysql;
    if (planning.read_timeout.count() > 0)
        planning.read_timeout = std::max(planning.read_timeout, planning_read_timeout);
    const auto started = std::chrono::steady_clock::now();
    mysql::Connection connection(planning);
    KeyIndex index(connection, plan);
    PartitionPlan result =
        strategy == PartitionStrategy::minmax ? plan_minmax(index, plan, count) : plan_balanced(index, plan, count);
    freeze_upper_bound(index, result);
    result.planning_time =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    return result;
}

std::optional<PartitionPlan> plan_rows_above(const MySqlOptions& mysql, const ReadPlan& plan, const KeyValue& bound) {
    mysql::Connection connection(mysql);
    KeyIndex index(connection, plan);
    return rows_above_bound(index, bound);
}

}  // namespace rowpump
