#pragma once
// The throttle's flags of `rowpump backfill` (docs/throttling.md).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "rowpump/throttle.hpp"

namespace rowpump::cli {

struct ThrottleFlags {
    std::vector<std::string> replicas;
    double max_lag_seconds = 1.5;
    std::string lag_query;
    std::string max_load;
    std::string critical_load;
    std::string pause_file;
    std::string stop_file;
    std::string throttle_query;
    std::string throttle_http;
    std::string http;
};

void add_throttle_flags(CLI::App& command, ThrottleFlags& flags);
// Throws UsageError for a bad URL or limit, naming the flag.
ThrottleSpec throttle_spec(const ThrottleFlags& flags);

}  // namespace rowpump::cli
