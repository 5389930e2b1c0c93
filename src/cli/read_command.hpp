#pragma once
// `rowpump read`: one table, page by page, one row per line on stdout, in key order.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/encoding_flags.hpp"
#include "cli/source_options.hpp"
#include "rowpump/encode.hpp"

namespace rowpump::cli {

struct ReadOptions {
    SourceOptions source;
    Format format = Format::json;  // json or csv
    std::size_t limit = 0;         // 0: every row
    EncodingFlags encoding;
    // Pages for applications (cursor_read.hpp): --first/--after, --last/--before, --sort, --filter, --page,
    // --page-info.
    std::optional<std::size_t> first;
    std::string after;
    std::optional<std::size_t> last;
    std::string before;
    std::string sort;
    std::vector<std::string> filter;
    std::optional<std::size_t> page;
    std::string page_info;
    bool approximate = false;  // --page by index estimates
};

CLI::App* setup_read(CLI::App& app, ReadOptions& options);
int run_read(const ReadOptions& options);

}  // namespace rowpump::cli
