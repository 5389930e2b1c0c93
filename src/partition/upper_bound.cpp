// The upper bound frozen when a run starts, as pt-archiver's --safe-auto-increment does: the last range
// stops at the key's maximum then, so a backfill of a table that keeps growing ends, and copies what was
// there when it began. --follow reads what was added above afterwards (rows_above_bound()).
//
// A single integer key is frozen by making the last range stop before maximum + 1; the job store keeps
// the ranges, so a resumed job keeps the original bound. Other keys have no successor to stop before, so
// their last range stays open above (describe_planning says so).
#include <limits>

#include "partition/key_index.hpp"
#include "partition/planners.hpp"

namespace rowpump {

namespace {

bool is_integer_key(const KeyIndex& index) {
    const auto& key = index.columns();
    return key.size() == 1 &&
           (key[0].kind == ColumnKind::signed_integer || key[0].kind == ColumnKind::unsigned_integer);
}

// maximum + 1, or nullopt at the type's largest value (no key can be added above it anyway).
std::optional<KeyValue> successor(const KeyValue& key) {
    if (const auto* value = std::get_if<std::int64_t>(&key[0]))
        return *value == std::numeric_limits<std::int64_t>::max() ? std::nullopt
                                                                  : std::optional<KeyValue>(KeyValue{*value + 1});
    const auto value = std::get<std::uint64_t>(key[0]);
    return value == std::numeric_limits<std::uint64_t>::max() ? std::nullopt
                                                              : std::optional<KeyValue>(KeyValue{value + 1});
}

}  // namespace

void freeze_upper_bound(KeyIndex& index, PartitionPlan& plan) {
    if (!is_integer_key(index) || plan.partitions.empty() || plan.partitions.back().range.hi) return;
    const auto last = index.last({});
    if (!last) return;
    plan.frozen_upper_bound = last;
    plan.partitions.back().range.hi = successor(*last);
}

std::optional<PartitionPlan> rows_above_bound(KeyIndex& index, const KeyValue& bound) {
    const PageBounds above{bound, false, std::nullopt};
    const auto first = index.nth(above, 0);
    if (!first) return std::nullopt;
    PartitionPlan plan;
    plan.strategy = PartitionStrategy::balanced;
    plan.partitions.push_back({KeyRange{successor(bound), std::nullopt}, 0});
    freeze_upper_bound(index, plan);
    plan.partitions.front().estimated_rows = index.estimate({successor(bound), true, plan.partitions.front().range.hi});
    plan.estimated_rows = plan.partitions.front().estimated_rows;
    plan.method = "the rows added above key " + to_string(bound);
    return plan;
}

}  // namespace rowpump
