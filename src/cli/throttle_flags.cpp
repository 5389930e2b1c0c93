#include "cli/throttle_flags.hpp"

#include "cli/number_flags.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

void add_throttle_flags(CLI::App& command, ThrottleFlags& flags) {
    command.add_option("--replica", flags.replicas,
                       "A replica to watch, mysql://user@host:port/db (repeatable; without a password, the source's for the same user): "
                       "reading pauses while one lags by more than --max-lag");
    command.add_option("--max-lag", flags.max_lag_seconds, "Most replica lag in seconds (default 1.5)")
        ->check(real_number(max_lag_bounds));
    command.add_option("--lag-query", flags.lag_query,
                       "SQL run on each replica instead of the heartbeat; its first cell is the lag in seconds");
    command.add_option("--max-load", flags.max_load,
                       "Pause while a numeric global status value is over its limit: VAR=N[,VAR=N], e.g. Threads_running=25");
    command.add_option("--critical-load", flags.critical_load,
                       "Stop (exit 3; resumable with --job-id) when a numeric global status value stays over: VAR=N[,VAR=N]");
    command.add_option("--pause-file", flags.pause_file, "Pause while this file exists");
    command.add_option("--http", flags.http,
                       "Serve /status, /metrics and POST /pause, /resume, /rate, /max-lag on HOST:PORT "
                       "(PORT alone: 127.0.0.1; no authentication: see docs/throttling.md)");
}

ThrottleSpec throttle_spec(const ThrottleFlags& flags) {
    ThrottleSpec spec;
    for (const auto& url : flags.replicas) {
        try {
            spec.replicas.push_back(MySqlOptions::from_url(url));
        } catch (const UsageError& error) {
            throw UsageError(std::string("--replica: ") + error.what());
        }
    }
    spec.max_lag = std::chrono::milliseconds(static_cast<std::int64_t>(flags.max_lag_seconds * 1000));
    spec.lag_query = flags.lag_query;
    if (!spec.lag_query.empty() && spec.replicas.empty())
        throw UsageError("--lag-query runs on the replicas: give them with --replica URL");
    if (!flags.max_load.empty()) spec.max_load = parse_load_limits(flags.max_load, "--max-load");
    if (!flags.critical_load.empty()) spec.critical_load = parse_load_limits(flags.critical_load, "--critical-load");
    spec.pause_file = flags.pause_file;
    spec.http = flags.http;
    return spec;
}

}  // namespace rowpump::cli
