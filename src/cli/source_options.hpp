#pragma once
// The flags that name what to read, shared by read, partition and backfill.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

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
    std::string strategy = "keyset";
    std::string null_keys = "refuse";
    // Unset: the URL's value, else the defaults of MySqlOptions and ReadSpec (stated in --help).
    std::optional<std::size_t> read_timeout_seconds;
    std::optional<std::size_t> write_timeout_seconds;
    std::optional<std::size_t> page_timeout_seconds;
    std::optional<std::size_t> retry_budget_seconds;
    std::string set_vars;  // --set-vars name=value,...: session variables of every source connection

    MySqlOptions mysql() const;
    ReadSpec read_spec() const;
};

void add_source_options(CLI::App& command, SourceOptions& options);

}  // namespace rowpump::cli
