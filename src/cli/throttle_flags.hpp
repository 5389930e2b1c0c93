#pragma once
// The throttle's flags of `rowpump backfill` (docs/throttling.md).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "rowpump/throttle.hpp"

namespace rowpump::cli {

struct ThrottleFlags {
    // The flags whose text the spec keeps as it is (a lag query, files, the throttle query and URL, the
    // endpoint) are bound to it directly; throttle_spec() parses the others into it.
    ThrottleSpec as_given;
    std::vector<std::string> replicas;
    double max_lag_seconds = 1.5;
    std::string max_load;
    std::string critical_load;
};

void add_throttle_flags(CLI::App& command, ThrottleFlags& flags);
// Throws UsageError for a bad URL or limit, naming the flag.
ThrottleSpec throttle_spec(const ThrottleFlags& flags);

}  // namespace rowpump::cli
