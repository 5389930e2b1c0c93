#pragma once
// The lines `run --dry-run`, `backfill --dry-run` and `explain` print alike about a job's plan, worded
// once: each command goes on with its own (the sink and workers, or the EXPLAIN of each statement).
#include <cstddef>
#include <string>

#include "rowpump/partition.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::cli {

// "table `shop`.`orders`, key (id): the primary key"
std::string describe_key(const ReadPlan& plan);

// "range 2 [1000, 2000) ~1000 rows"; an open bound is "start" or "end".
std::string describe_range(std::size_t index, const Partition& partition);

}  // namespace rowpump::cli
