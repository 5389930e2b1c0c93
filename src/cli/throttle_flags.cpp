#include "cli/throttle_flags.hpp"

#include "cli/schema_flags.hpp"
#include "config/option_checks.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

using config::Spelling;

void add_throttle_flags(CLI::App& command, ThrottleFlags& flags) {
    add_schema_option(command, OptionId::replica, flags.replicas);
    add_schema_option(command, OptionId::max_lag, flags.max_lag_seconds);
    add_schema_option(command, OptionId::lag_query, flags.lag_query);
    add_schema_option(command, OptionId::max_load, flags.max_load);
    add_schema_option(command, OptionId::critical_load, flags.critical_load);
    add_schema_option(command, OptionId::pause_file, flags.pause_file);
    add_schema_option(command, OptionId::http, flags.http);
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
    spec.http = flags.http;
    return spec;
}

}  // namespace rowpump::cli
