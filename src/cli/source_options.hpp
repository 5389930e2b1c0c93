#pragma once
// The flags that name what to read, shared by read, partition and backfill.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/timeout_flags.hpp"
#include "rowpump/options.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::cli {

struct SourceOptions {
    std::string mysql_url;  // empty: $ROWPUMP_MYSQL_URL
    std::string table;
    std::vector<std::string> key;
    std::vector<std::string> columns;
    std::string where;
    std::size_t page_size = ReadSpec{}.page_size;
    PagingStrategy strategy = PagingStrategy::keyset;
    NullKeys null_keys = NullKeys::refuse;
    TimeoutFlags timeouts;  // --read-timeout, --write-timeout, --retry-budget
    // Unset: ReadSpec's default (stated in --help).
    std::optional<std::size_t> page_timeout_seconds;
    std::string set_vars;  // --set-vars name=value,...: session variables of every source connection

    MySqlOptions mysql() const;
    ReadSpec read_spec() const;
};

void add_source_options(CLI::App& command, SourceOptions& options);

}  // namespace rowpump::cli
