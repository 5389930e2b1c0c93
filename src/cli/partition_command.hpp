#pragma once
// `rowpump partition`: show how a table would be split into key ranges for parallel reading, with the
// rows each range is expected to hold. Reads keys only, writes nothing.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "cli/source_options.hpp"
#include "rowpump/partition.hpp"

namespace rowpump::cli {

struct PartitionOptions {
    SourceOptions source;
    std::size_t partitions = 0;  // required: the number of ranges wanted (fewer when the table is smaller)
    PartitionStrategy strategy = PartitionStrategy::balanced;
    bool json = false;  // a JSON array of {lo, hi, estimated_rows} instead of a text table
};

CLI::App* setup_partition(CLI::App& app, PartitionOptions& options);
int run_partition(const PartitionOptions& options);

}  // namespace rowpump::cli
