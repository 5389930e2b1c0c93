// minmax: boundaries by arithmetic between the key's lowest and highest values. Two index descents and
// no scan, so it is instant on any table size; the price is that ranges are equal in key width, not in
// rows: a skewed key (most rows in a narrow band) gives very uneven ranges. Use balanced for those.
// Each range's rows are the optimizer's estimates (EXPLAIN: index dives), corrected as balanced plans
// correct them, so uneven ranges show as uneven and the total is near the truth.
#include "partition/planners.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

bool is_integer(const Column& column) {
    return column.kind == ColumnKind::signed_integer || column.kind == ColumnKind::unsigned_integer;
}

}  // namespace

PartitionPlan plan_minmax(KeyIndex& index, const ReadPlan& plan, std::size_t count) {
    if (count == 0) throw UsageError("the number of partitions must be at least 1");
    const auto& key = index.columns();
    if (key.size() != 1 || !is_integer(key[0]))
        throw UsageError("minmax needs a single integer key; use --strategy balanced (" + plan.table.quoted_name() +
                         " is keyed by " + column_list(KeyExpression::of(key)) + ")");

    // Index ends with ORDER BY ... LIMIT 1 rather than MIN()/MAX(): with a filter, MIN()/MAX() may scan,
    // while the ordered LIMIT 1 stops at the first matching entry from either end.
    const auto lo = index.nth({}, 0);
    const auto hi = lo ? index.last({}) : std::nullopt;
    PartitionPlan result;
    // Both exist when one does, unless every row was deleted in between; then one range it is.
    if (lo && hi) {
        result = plan_equal_widths(index, plan, (*lo)[0], (*hi)[0], count);
    } else {
        result.strategy = PartitionStrategy::minmax;
        result.partitions.push_back({KeyRange{}, 0});
        result.method = "an empty table";
    }
    // The rows with a NULL key are read by the first range, in the reader's NULL pass.
    result.partitions.front().estimated_rows += plan.null_key_rows;
    for (const auto& partition : result.partitions) result.estimated_rows += partition.estimated_rows;
    return result;
}

}  // namespace rowpump
