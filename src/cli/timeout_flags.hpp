#pragma once
// --read-timeout, --write-timeout and --retry-budget, described once for every command that connects to a
// server (backfill, read, partition, run's overrides aside, and the queue commands).
#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>

#include "rowpump/options.hpp"

namespace rowpump::cli {

// Unset: the URL's value, else the ServerTimeouts defaults (stated in --help).
struct TimeoutFlags {
    std::optional<std::size_t> read_timeout_seconds;
    std::optional<std::size_t> write_timeout_seconds;
    std::optional<std::size_t> retry_budget_seconds;

    // Sets what was given, leaves the rest.
    void apply(ServerTimeouts& timeouts) const;
};

void add_timeout_flags(CLI::App& command, TimeoutFlags& flags);

}  // namespace rowpump::cli
