#pragma once
// Where a range is split: N half-open key ranges that cover the table's key space exactly once, the
// first open below and the last open above.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/key.hpp"
#include "rowpump/options.hpp"
#include "rowpump/reader.hpp"

namespace ROWPUMP_EXPORT rowpump {

enum class PartitionStrategy {
    minmax,    // arithmetic split of an integer key between the index ends
    balanced,  // about the same number of rows per range, any key type, index-only queries
};

// "minmax" or "balanced"; throws UsageError otherwise.
PartitionStrategy parse_partition_strategy(const std::string& name);
std::string to_string(PartitionStrategy strategy);

struct Partition {
    KeyRange range;
    // The rows of the range when planned: counted, or from index estimates (PartitionPlan::method says
    // which). The first range also counts the rows with a NULL key, which its reader reads in a separate
    // pass.
    std::uint64_t estimated_rows = 0;
};

struct PartitionPlan {
    PartitionStrategy strategy = PartitionStrategy::balanced;
    std::vector<Partition> partitions;  // in key order; never empty (an empty table gets one open range)
    std::uint64_t estimated_rows = 0;   // the sum over the partitions
    std::string method;                 // how the rows were counted or estimated, for display
    // The key's maximum when planned: the last range stops there (a single integer key; other keys leave
    // the last range open above). nullopt when not frozen.
    std::optional<KeyValue> frozen_upper_bound;
    std::chrono::milliseconds planning_time{0};  // the time the plan took, connecting included
};

// Splits the rows the plan reads (its filter included) into at most `count` ranges: fewer only when the
// table holds fewer distinct keys than `count`. minmax needs a single integer key column; balanced takes
// any key. Throws UsageError for count 0 or a key minmax cannot split.
PartitionPlan plan_partitions(const MySqlOptions& mysql, const ReadPlan& plan, std::size_t count,
                              PartitionStrategy strategy);

// "planned in 14 ms from index estimates (140 EXPLAINs), ...": the method and what it took, and where the
// last range stops, for display.
std::string describe_planning(const PartitionPlan& plan);

// For --follow: one range over the rows added above `bound` (a frozen upper bound) since it was taken,
// itself frozen at the key's maximum now; nullopt when there are none.
std::optional<PartitionPlan> plan_rows_above(const MySqlOptions& mysql, const ReadPlan& plan, const KeyValue& bound);

}  // namespace rowpump
