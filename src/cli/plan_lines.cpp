#include "cli/plan_lines.hpp"

namespace rowpump::cli {

std::string describe_key(const ReadPlan& plan) {
    std::string out = "table " + plan.table.quoted_name() + ", key (";
    for (std::size_t i = 0; i < plan.key.columns.size(); ++i) out += (i ? ", " : "") + plan.key.columns[i];
    return out + "): " + plan.key.reason;
}

std::string describe_range(std::size_t index, const Partition& partition) {
    const KeyRange& range = partition.range;
    return "range " + std::to_string(index) + " [" + (range.lo ? to_string(*range.lo) : "start") + ", " +
           (range.hi ? to_string(*range.hi) : "end") + ") ~" + std::to_string(partition.estimated_rows) + " rows";
}

}  // namespace rowpump::cli
