#pragma once
// The two planners behind plan_partitions(), over a KeyIndex the caller holds (tests call them directly
// to reach paths that only very large tables take).
#include <cstddef>
#include <cstdint>

#include "partition/key_index.hpp"
#include "rowpump/partition.hpp"

namespace rowpump {

// Throws UsageError unless the key is a single integer column.
PartitionPlan plan_minmax(KeyIndex& index, const ReadPlan& plan, std::size_t count);

struct BalancedOptions {
    // Tables whose statistics say at most this many rows are counted exactly first, then walked once:
    // exact balance for two passes over the index. Above it, a single pass samples boundary candidates
    // (see samples_per_partition) instead, since counting alone would take as long as the walk. A filter
    // always means counting: statistics know nothing of its selectivity.
    std::uint64_t exact_count_limit = 10'000'000;
    // Boundary candidates the single pass aims to collect per partition: each boundary lands within
    // about 1 / (2 * samples_per_partition) of a partition of its ideal place.
    std::size_t samples_per_partition = 32;
    // Tables whose statistics say more rows than this are planned from index estimates where the key
    // allows (plan_by_estimates); smaller ones are counted, which is exact and still quick.
    std::uint64_t estimate_above_rows = 100'000;
};

PartitionPlan plan_balanced(KeyIndex& index, const ReadPlan& plan, std::size_t count,
                            const BalancedOptions& options = {});

struct EstimateOptions {
    // Cells of the key's span per partition: each boundary lands within half a cell of its share.
    std::size_t cells_per_partition = 16;
    // A cell holding more than twice its share is cut into this many.
    std::size_t cells_per_cut = 8;
    // A bound on the EXPLAINs per partition, whatever the key's shape.
    std::size_t max_dives_per_partition = 64;
    // The most rows, by estimate, of each of the eight ranges counted exactly to measure the estimates'
    // bias (fewer on tables below 8M estimated rows: a 4000th of the estimate, at least 200).
    std::uint64_t calibration_rows = 2000;
};

// balanced without reading the table: boundaries from index estimates (estimated.cpp). Only for a key
// whose first column is an integer, a DATE, DATETIME or TIMESTAMP, or collated text (not ENUM or SET),
// and no filter, whose selectivity
// the estimates cannot see. nullopt when one value of a composite key's first column (or the keys
// between two neighbouring probes of a text key) hold too many rows to balance on.
bool can_plan_by_estimates(const KeyIndex& index, const ReadPlan& plan);

// minmax's ranges, between the single integer key's lowest value `lo` and highest `hi`, with rows estimated
// as plan_by_estimates estimates them (estimated.cpp): InnoDB's estimates corrected by exact counts.
PartitionPlan plan_equal_widths(KeyIndex& index, const ReadPlan& plan, const KeyPart& lo, const KeyPart& hi,
                                std::size_t count);

// Stops the plan's last range at the key's maximum now (upper_bound.cpp).
void freeze_upper_bound(KeyIndex& index, PartitionPlan& plan);
// One frozen range over the keys above `bound`; nullopt when there are none.
std::optional<PartitionPlan> rows_above_bound(KeyIndex& index, const KeyValue& bound);
std::optional<PartitionPlan> plan_by_estimates(KeyIndex& index, const ReadPlan& plan, std::size_t count,
                                               const EstimateOptions& options = {});

}  // namespace rowpump
