#include "job/job_sections.hpp"
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
    const Section throttle =
        field.section({"replicas", "max_lag", "lag_query", "max_load", "critical_load", "pause_file", "http"});
    if (auto replicas = throttle.optional("replicas")) {
        const std::vector<Field> urls = replicas->is_list() ? replicas->items() : std::vector<Field>{*replicas};
        for (const Field& url : urls)
            spec.replicas.push_back(checked(url, [&] { return MySqlOptions::from_url(url.text()); }));
    }
    if (auto max_lag = throttle.optional("max_lag"))
        spec.max_lag = std::chrono::milliseconds(static_cast<std::int64_t>(max_lag->number(0.001, 86'400) * 1000));
    if (auto lag_query = throttle.optional("lag_query")) {
        if (spec.replicas.empty()) lag_query->fail("runs on the replicas: give them in throttle.replicas");
        spec.lag_query = lag_query->text();
    }
    if (auto max_load = throttle.optional("max_load"))
        spec.max_load = checked(*max_load, [&] { return parse_load_limits(max_load->text(), "max_load"); });
    if (auto critical_load = throttle.optional("critical_load"))
        spec.critical_load =
            checked(*critical_load, [&] { return parse_load_limits(critical_load->text(), "critical_load"); });
    if (auto pause_file = throttle.optional("pause_file")) spec.pause_file = pause_file->text();
    if (auto http = throttle.optional("http")) spec.http = http->text();
}

}  // namespace rowpump::job
