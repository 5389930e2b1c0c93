// minmax: boundaries by arithmetic between the key's lowest and highest values. Two index descents and
// no scan, so it is instant on any table size; the price is that ranges are equal in key width, not in
// rows: a skewed key (most rows in a narrow band) gives very uneven ranges. Use balanced for those.
#include "partition/planners.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

bool is_integer(const Column& column) {
    return column.kind == ColumnKind::signed_integer || column.kind == ColumnKind::unsigned_integer;
}

template <class Integer>
std::vector<KeyValue> integer_points(const KeyValue& lo, const KeyValue& hi, std::size_t count) {
    std::vector<KeyValue> points;
    for (Integer point : split_points(std::get<Integer>(lo[0]), std::get<Integer>(hi[0]), count))
        points.push_back({point});
    return points;
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
    std::vector<KeyValue> points;
    const auto lo = index.nth({}, 0);
    const auto hi = lo ? index.last({}) : std::nullopt;
    // Both exist when one does, unless every row was deleted in between; then one range it is.
    if (lo && hi)
        points = key[0].kind == ColumnKind::signed_integer ? integer_points<std::int64_t>(*lo, *hi, count)
                                                           : integer_points<std::uint64_t>(*lo, *hi, count);

    PartitionPlan result;
    result.strategy = PartitionStrategy::minmax;
    result.method = "arithmetic between the key's ends; rows by index estimates";
    // Each range's rows are the optimizer's estimate for it (EXPLAIN: index dives, no scan), so uneven
    // ranges show as uneven. InnoDB never estimates below one row; a bounded count tells 0 from 1.
    for (auto& range : ranges_between(points)) {
        const PageBounds bounds{range.lo, true, range.hi};
        std::uint64_t rows = hi ? index.estimate(bounds) : 0;
        if (rows == 1) rows = index.count(bounds, 1);
        result.partitions.push_back({std::move(range), rows});
    }
    // The rows with a NULL key are read by the first range, in the reader's NULL pass.
    result.partitions.front().estimated_rows += plan.null_key_rows;
    for (const auto& partition : result.partitions) result.estimated_rows += partition.estimated_rows;
    return result;
}

}  // namespace rowpump
