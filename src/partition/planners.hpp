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
};

PartitionPlan plan_balanced(KeyIndex& index, const ReadPlan& plan, std::size_t count,
                            const BalancedOptions& options = {});

}  // namespace rowpump
