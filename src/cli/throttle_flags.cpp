#include "cli/throttle_flags.hpp"

#include "cli/schema_flags.hpp"
#include "config/option_checks.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

using config::Spelling;

void add_throttle_flags(CLI::App& command, ThrottleFlags& flags) {
    using enum OptionId;
    ThrottleSpec& given = flags.as_given;
    add_schema_options(command, {{replica, flags.replicas}, {max_lag, flags.max_lag_seconds},
                                 {lag_query, given.lag_query}, {max_load, flags.max_load},
                                 {critical_load, flags.critical_load}, {pause_file, given.pause_file},
                                 {stop_file, given.stop_file}, {throttle_query, given.throttle_query},
                                 {throttle_http, given.throttle_http}, {http, given.http}});
}

ThrottleSpec throttle_spec(const ThrottleFlags& flags) {
    ThrottleSpec spec = flags.as_given;
    for (const auto& url : flags.replicas) {
        try {
            spec.replicas.push_back(MySqlOptions::from_url(url));
        } catch (const UsageError& error) {
            throw UsageError(config::spelled(OptionId::replica, Spelling::cli) + ": " + error.what());
        }
    }
    spec.max_lag = std::chrono::milliseconds(static_cast<std::int64_t>(flags.max_lag_seconds * 1000));
    config::check_lag_query_applies(spec);
    if (!flags.max_load.empty())
        spec.max_load = parse_load_limits(flags.max_load, config::spelled(OptionId::max_load, Spelling::cli));
    if (!flags.critical_load.empty())
        spec.critical_load = parse_load_limits(flags.critical_load, config::spelled(OptionId::critical_load, Spelling::cli));
    return spec;
}

}  // namespace rowpump::cli
