#include "cli/throttle_flags.hpp"

#include "cli/schema_flags.hpp"
#include "config/option_checks.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

using config::Spelling;

void add_throttle_flags(CLI::App& command, ThrottleFlags& flags) {
    using enum OptionId;
    add_schema_options(command, {{replica, flags.replicas}, {max_lag, flags.max_lag_seconds},
                                 {lag_query, flags.lag_query}, {max_load, flags.max_load},
                                 {critical_load, flags.critical_load}, {pause_file, flags.pause_file},
                                 {stop_file, flags.stop_file}, {throttle_query, flags.throttle_query},
                                 {throttle_http, flags.throttle_http}, {http, flags.http}});
}

ThrottleSpec throttle_spec(const ThrottleFlags& flags) {
    ThrottleSpec spec;
    for (const auto& url : flags.replicas) {
        try {
            spec.replicas.push_back(MySqlOptions::from_url(url));
        } catch (const UsageError& error) {
            throw UsageError(config::spelled(OptionId::replica, Spelling::cli) + ": " + error.what());
        }
    }
    spec.max_lag = std::chrono::milliseconds(static_cast<std::int64_t>(flags.max_lag_seconds * 1000));
    spec.lag_query = flags.lag_query;
    config::check_lag_query_applies(spec);
    if (!flags.max_load.empty())
        spec.max_load = parse_load_limits(flags.max_load, config::spelled(OptionId::max_load, Spelling::cli));
    if (!flags.critical_load.empty())
        spec.critical_load = parse_load_limits(flags.critical_load, config::spelled(OptionId::critical_load, Spelling::cli));
    spec.pause_file = flags.pause_file;
    spec.stop_file = flags.stop_file;
    spec.throttle_query = flags.throttle_query;
    spec.throttle_http = flags.throttle_http;
    spec.http = flags.http;
    return spec;
}

}  // namespace rowpump::cli
