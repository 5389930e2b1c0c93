#include "config/option_checks.hpp"
#include "job/job_sections.hpp"
#include "job/option_fields.hpp"
#include "rowpump/error.hpp"

namespace rowpump::job {

namespace {

template <class Parse>
auto checked(const Field& field, Parse&& parse) -> decltype(parse()) {
    try {
        return parse();
    } catch (const ConfigError&) {
        throw;
    } catch (const UsageError& error) {
        field.fail(error.what());
    }
}

}  // namespace

void read_throttle(const Field& field, ThrottleSpec& spec) {
    const Section throttle = field.section(config::section_keys("throttle"));
    if (auto replicas = throttle.optional("replicas")) {
        const std::vector<Field> urls = replicas->is_list() ? replicas->items() : std::vector<Field>{*replicas};
        for (const Field& url : urls)
            spec.replicas.push_back(checked(url, [&] { return MySqlOptions::from_url(url.text()); }));
    }
    double max_lag = 0;
    if (read_option(throttle, OptionId::max_lag, max_lag))
        spec.max_lag = std::chrono::milliseconds(static_cast<std::int64_t>(max_lag * 1000));
    if (auto lag_query = read_option(throttle, OptionId::lag_query, spec.lag_query))
        at_field(*lag_query, [&] { config::check_lag_query_applies(spec); });
    if (auto max_load = throttle.optional("max_load"))
        spec.max_load = checked(*max_load, [&] { return parse_load_limits(max_load->text(), "max_load"); });
    if (auto critical_load = throttle.optional("critical_load"))
        spec.critical_load =
            checked(*critical_load, [&] { return parse_load_limits(critical_load->text(), "critical_load"); });
    read_option(throttle, OptionId::pause_file, spec.pause_file);
    read_option(throttle, OptionId::stop_file, spec.stop_file);
    read_option(throttle, OptionId::throttle_query, spec.throttle_query);
    read_option(throttle, OptionId::throttle_http, spec.throttle_http);
    read_option(throttle, OptionId::http, spec.http);
}

}  // namespace rowpump::job
