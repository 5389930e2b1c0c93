#include "cli/timeout_flags.hpp"

#include <string>

namespace rowpump::cli {

void TimeoutFlags::apply(ServerTimeouts& timeouts) const {
    if (read_timeout_seconds) timeouts.read_timeout = std::chrono::seconds(*read_timeout_seconds);
    if (write_timeout_seconds) timeouts.write_timeout = std::chrono::seconds(*write_timeout_seconds);
    if (retry_budget_seconds) timeouts.retry_budget = std::chrono::seconds(*retry_budget_seconds);
}

void add_timeout_flags(CLI::App& command, TimeoutFlags& flags) {
    const ServerTimeouts defaults;
    const auto seconds = CLI::Range(std::size_t{0}, std::size_t{86400});
    command.add_option("--read-timeout", flags.read_timeout_seconds,
                       "Seconds one socket read may wait for a server (MySQL or Redis) that stopped answering, 0 "
                       "forever (default " + std::to_string(defaults.read_timeout.count()) +
                           "; a page read waits --page-timeout + 5 s, a blocking pop its block time on top)")
        ->check(seconds);
    command.add_option("--write-timeout", flags.write_timeout_seconds,
                       "Seconds one socket write to MySQL or Redis may stall, 0 forever (default " +
                           std::to_string(defaults.write_timeout.count()) + ")")
        ->check(seconds);
    command.add_option("--retry-budget", flags.retry_budget_seconds,
                       "Seconds a lost connection, timed-out read, deadlock or server restart is retried, from its "
                       "first failure, before the command fails (default " +
                           std::to_string(defaults.retry_budget.count()) +
                           "), for the source, the sink's server and the job store alike. A server that is frozen, "
                           "not down, ends the command after about --read-timeout plus this")
        ->check(seconds);
}

}  // namespace rowpump::cli
