#include "cursor/page_bookmarks.hpp"

#include <algorithm>

#include "partition/planners.hpp"

namespace rowpump {

std::optional<PageBookmarks> PageBookmarks::build(mysql::Connection& connection, const TableInfo& table,
                                                  const SortOrder& order, bool filtered) {
    if (filtered) return std::nullopt;
    // The planner reads a key in ascending order: the sort's columns, each ascending. Its boundaries are
    // values of the first column (snapped to the first real key at or above them), and a range holds
    // whole values of it, so a boundary is a place in any mix of directions of the later columns.
    ReadPlan plan;
    plan.table = table;
    for (const auto& column : order.columns) plan.key.columns.push_back(column.name);
    plan.key.reason = "the cursor's sort";
    plan.columns = order.columns;
    KeyIndex index(connection, plan);
    if (!can_plan_by_estimates(index, plan)) return std::nullopt;
    const std::uint64_t statistics = index.table_rows_estimate();
    const auto count = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(statistics / span_rows + 1, 1, max_bookmarks));
    EstimateOptions options;
    options.cells_per_partition = 4;  // a bookmark's place need not be balanced, only known
    const auto planned = plan_by_estimates(index, plan, count, options);
    if (!planned) return std::nullopt;

    PageBookmarks out;
    out.total_rows_ = planned->estimated_rows;
    out.method_ = planned->method;
    const bool descending = order.directions[0] == SortDirection::descending;
    const std::string& lead = order.bare.columns[0];
    const std::string& placeholder = order.bare.placeholders[0];
    std::uint64_t below = 0;  // rows whose first column is below the bookmark's value
    out.landings_.push_back({});
    for (const auto& partition : planned->partitions) {
        if (partition.range.lo) {
            const KeyPart& value = (*partition.range.lo)[0];
            // Ascending, the rows from the value on start after `below` rows; descending, the rows
            // below it start after the others.
            if (descending)
                out.landings_.push_back({{lead + " < " + placeholder, {value}}, out.total_rows_ - std::min(below, out.total_rows_)});
            else
                out.landings_.push_back({{lead + " >= " + placeholder, {value}}, below});
        }
        below += partition.estimated_rows;
    }
    std::stable_sort(out.landings_.begin(), out.landings_.end(),
                     [](const Landing& a, const Landing& b) { return a.position < b.position; });
    return out;
}

PageBookmarks::Landing PageBookmarks::at_or_before(std::uint64_t position) const {
    auto after = std::upper_bound(landings_.begin(), landings_.end(), position,
                                  [](std::uint64_t p, const Landing& landing) { return p < landing.position; });
    return *std::prev(after);  // the first landing is at 0, so there is always one at or before
}

}  // namespace rowpump
