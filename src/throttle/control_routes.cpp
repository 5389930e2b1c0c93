#include "throttle/control_routes.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>

#include "bounded_number.hpp"
#include "config/option_error.hpp"
#include "config/option_schema.hpp"
#include "http/web_page.hpp"
#include "json_members.hpp"
#include "metrics/prometheus_text.hpp"
#include "metrics/run_counters.hpp"
#include "retry.hpp"
#include "rowpump/error.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump::throttle {

using config::OptionId;

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

using json::member;

// A key as its text ("[42]"), an open bound as null.
void member(Writer& json, const char* key, const std::optional<KeyValue>& key_value) {
    json.Key(key);
    if (key_value) json.String(to_string(*key_value));
    else json.Null();
}

// This run's rate (rows it wrote, not earlier runs') and the time left at that rate.
struct Pace {
    double rate = 0;
    std::optional<double> eta_seconds;
};

Pace pace(const JobProgress& progress) {
    Pace out;
    const std::uint64_t this_run = progress.rows_written - std::min(progress.rows_written, progress.rows_done_before);
    if (progress.seconds > 0) out.rate = static_cast<double>(this_run) / progress.seconds;
    const std::uint64_t total = std::max(progress.estimated_rows, progress.rows_written);
    if (out.rate > 0) out.eta_seconds = static_cast<double>(total - progress.rows_written) / out.rate;
    return out;
}

http::Response status(ThrottleGate& gate) {
    const GateView view = gate.view();
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    json.StartObject();
    member(json, "kind", std::string("backfill"));  // the page (GET /) shows a backfill or a consumer by it
    member(json, "state", to_string(view.state));
    member(json, "reason", view.reason);
    member(json, "rate_limit", view.rate_limit);
    member(json, "max_lag_seconds", view.max_lag_seconds);
    member(json, "max_load", view.max_load);
    member(json, "page_size", std::uint64_t{view.page_size});
    member(json, "stop_file", view.stop_file);
    member(json, "throttle_query", view.throttle_query);
    member(json, "throttle_http", view.throttle_http);
    member(json, "stop_reason", view.stop_reason);
    if (view.run) {
        const Pace run_pace = pace(view.run->progress);
        member(json, "rows_written", view.run->progress.rows_written);
        member(json, "rows_estimated", view.run->progress.estimated_rows);
        member(json, "rate", run_pace.rate);
        member(json, "eta_seconds", run_pace.eta_seconds);
        member(json, "seconds", view.run->progress.seconds);
    }
    member(json, "workers_held", view.workers_held);
    member(json, "pages_held", view.pages_held);
    member(json, "pages_writing", view.pages_writing);
    member(json, "pages_waiting_for_rate", view.pages_waiting_for_rate);
    json.Key("held_seconds");
    json.StartObject();
    for (const auto& [reason, seconds] : view.held_seconds) {
        json.Key(reason.c_str(), static_cast<rapidjson::SizeType>(reason.size()));
        json::write_value(json, seconds);
    }
    json.EndObject();
    json.Key("replicas");
    json.StartArray();
    for (const auto& replica : view.replicas) {
        json.StartObject();
        member(json, "replica", replica.name);
        member(json, "lag_seconds", replica.lag_seconds);
        member(json, "lagging", replica.lagging);
        member(json, "problem", replica.problem);
        json.EndObject();
    }
    json.EndArray();
    json.Key("ranges");
    json.StartArray();
    if (view.run) {
        for (std::size_t i = 0; i < view.run->ranges.size(); ++i) {
            const RangeSummary& range = view.run->ranges[i];
            json.StartObject();
            member(json, "range", std::uint64_t{i});
            member(json, "lo", range.range.lo);
            member(json, "hi", range.range.hi);
            member(json, "last_key", range.last_written);
            member(json, "rows_written", range.rows_written);
            member(json, "estimated_rows", range.estimated_rows);
            member(json, "state", std::string(range.finished ? "done" : "pending"));
            // done; reading or waiting on this process's range board; pending with a job id (the store
            // holds the leases, of this process and others)
            const RangeActivity* activity = i < view.run->activity.size() ? &view.run->activity[i] : nullptr;
            member(json, "phase", std::string(range.finished ? "done"
                                              : !activity      ? "pending"
                                              : activity->reading ? "reading"
                                                                  : "waiting"));
            member(json, "split_off", activity != nullptr && activity->split_off);
            json.EndObject();
        }
    }
    json.EndArray();
    json.EndObject();
    return {200, "application/json", std::string(buffer.GetString(), buffer.GetSize()) + "\n"};
}

// The limits as the gate shows them, which it parsed itself: never malformed.
std::vector<LoadLimit> parse_load_limits_or_none(const std::string& text) {
    return text.empty() ? std::vector<LoadLimit>{} : parse_load_limits(text, "max_load");
}

http::Response metrics_page(ThrottleGate& gate) {
    const GateView view = gate.view();
    const auto& counters = metrics::run_counters();
    metrics::PrometheusText page;
    const auto counter = [&](const char* name, const char* help, const std::atomic<std::uint64_t>& value) {
        page.family(name, "counter", help);
        page.sample(name, static_cast<double>(value.load()));
    };
    counter("rowpump_rows_read_total", "Rows read from the source table.", counters.rows_read);
    counter("rowpump_rows_written_total", "Rows written to the sink.", counters.rows_written);
    counter("rowpump_pages_read_total", "Pages read from the source table.", counters.pages_read);
    counter("rowpump_pages_written_total", "Pages written to the sink.", counters.pages_written);
    counter("rowpump_retries_total", "Transient MySQL and Redis failures that were retried.", retries_total());

    page.family("rowpump_throttled_seconds_total", "counter", "Seconds reading was held, by reason.");
    for (const char* reason : {"replica_lag", "load", "pause_file", "paused", "throttle_query", "throttle_http"}) {
        const auto held = view.held_seconds.find(reason);
        page.sample("rowpump_throttled_seconds_total", held == view.held_seconds.end() ? 0 : held->second,
                    {{"reason", reason}});
    }
    page.family("rowpump_state", "gauge", "1 for the state the run is in: running, paused, throttled, stopping.");
    for (const GateState state : {GateState::running, GateState::paused, GateState::throttled, GateState::stopping})
        page.sample("rowpump_state", state == view.state ? 1 : 0, {{"state", to_string(state)}});

    page.family("rowpump_replica_lag_seconds", "gauge", "Each replica's lag; NaN when it cannot tell.");
    for (const auto& replica : view.replicas)
        page.sample("rowpump_replica_lag_seconds", replica.lag_seconds ? *replica.lag_seconds : std::nan(""),
                    {{"replica", replica.name}});
    page.family("rowpump_replica_lagging", "gauge", "1 while a replica holds reading (over --max-lag or unknown).");
    for (const auto& replica : view.replicas)
        page.sample("rowpump_replica_lagging", replica.lagging ? 1 : 0, {{"replica", replica.name}});
    page.family("rowpump_max_lag_seconds", "gauge", "The replica lag above which reading pauses.");
    page.sample("rowpump_max_lag_seconds", view.max_lag_seconds);
    page.family("rowpump_rate_limit_rows_per_second", "gauge", "The rate cap; 0: none.");
    page.sample("rowpump_rate_limit_rows_per_second", view.rate_limit);
    page.family("rowpump_page_size_rows", "gauge", "The page size set by POST /page-size; 0: the run's own.");
    page.sample("rowpump_page_size_rows", static_cast<double>(view.page_size));
    page.family("rowpump_max_load", "gauge", "Each --max-load limit (POST /max-load changes them).");
    for (const LoadLimit& limit : parse_load_limits_or_none(view.max_load))
        page.sample("rowpump_max_load", limit.limit, {{"variable", limit.variable}});
    page.family("rowpump_stop_requested", "gauge",
                "1 once a stop was asked for (POST /stop, --stop-file, --critical-load): the run is stopping.");
    page.sample("rowpump_stop_requested", view.stop_reason.empty() ? 0 : 1);
    page.family("rowpump_throttle_checks", "gauge", "1 for each external throttle check in use, by kind.");
    page.sample("rowpump_throttle_checks", view.throttle_query.empty() ? 0 : 1, {{"check", "throttle_query"}});
    page.sample("rowpump_throttle_checks", view.throttle_http.empty() ? 0 : 1, {{"check", "throttle_http"}});
    page.sample("rowpump_throttle_checks", view.stop_file.empty() ? 0 : 1, {{"check", "stop_file"}});

    std::size_t done = 0;
    std::size_t pending = 0;
    if (view.run)
        for (const auto& range : view.run->ranges) (range.finished ? done : pending) += 1;
    page.family("rowpump_ranges", "gauge", "Key ranges of the run, by state.");
    page.sample("rowpump_ranges", static_cast<double>(done), {{"state", "done"}});
    page.sample("rowpump_ranges", static_cast<double>(pending), {{"state", "pending"}});
    if (view.run) {
        page.family("rowpump_rows_estimated", "gauge", "Rows the run's plan expects.");
        page.sample("rowpump_rows_estimated", static_cast<double>(view.run->progress.estimated_rows));
    }
    return {200, metrics::PrometheusText::content_type, page.text()};
}

// ?value=N, read as the command line reads the same flag: one value, a plain decimal number within the
// flag's bounds. Else the line that says what is wrong.
struct Value {
    std::optional<double> number;
    std::string problem;
};

// The bounds are the option's (--rate, limits.rate in a job file), named as on the command line.
Value value_parameter(const http::Request& request, const NumberBounds& bounds, config::OptionId option) {
    const std::vector<std::string> values = request.values("value");
    const std::string wanted =
        request.path + " needs ?value=N once, N " + describe(bounds) + " (as " + config::option(option).cli + ")";
    if (values.size() != 1)
        return {std::nullopt, wanted + (values.empty() ? "" : "; got it " + std::to_string(values.size()) + " times")};
    if (auto number = parse_bounded_number(values[0], bounds)) return {number, ""};
    return {std::nullopt, wanted + "; got '" + values[0] + "'"};
}

std::string number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", value);
    return buffer;
}

http::Response text(int code, const std::string& body) { return {code, "text/plain", body + "\n"}; }

// ?value=N, a whole number within --page-size's bounds.
http::Response page_size(ThrottleGate& gate, const http::Request& request) {
    const config::OptionSpec& spec = config::option(OptionId::page_size);
    const NumberBounds bounds{static_cast<double>(spec.whole.min), static_cast<double>(spec.whole.max), false};
    const Value value = value_parameter(request, bounds, OptionId::page_size);
    if (!value.number || *value.number != std::floor(*value.number))
        return text(400, value.problem.empty() ? request.path + " needs a whole number of rows (as --page-size)"
                                               : value.problem);
    gate.set_page_size(static_cast<std::size_t>(*value.number));
    return text(200, "page size " + number_text(*value.number) + " rows from the next page on");
}

// ?value=VAR=N[,VAR=N] (or empty: no limit), read and checked against the server as --max-load is.
http::Response max_load(ThrottleGate& gate, const http::Request& request) {
    const std::vector<std::string> values = request.values("value");
    if (values.size() != 1)
        return text(400, request.path + " needs ?value=VAR=N[,VAR=N] once (as --max-load), e.g. "
                                        "?value=Threads_running=25; an empty value removes the limits");
    try {
        gate.set_max_load(values[0]);
    } catch (const config::OptionError& error) {
        return text(400, error.render(config::Spelling::cli));
    } catch (const Error& error) {
        return text(400, error.what());
    }
    return text(200, values[0].empty() ? "max load: none" : "max load " + values[0]);
}

}  // namespace

http::Response handle_control(ThrottleGate& gate, const http::Request& request) {
    const bool get = request.method == "GET";
    const bool post = request.method == "POST";
    if (auto page = http::web_page(request)) return *page;
    if (request.path == "/status" && get) return status(gate);
    if (request.path == "/metrics" && get) return metrics_page(gate);
    if (request.path == "/pause" && post) {
        gate.pause();
        return text(200, "paused");
    }
    if (request.path == "/resume" && post) {
        gate.resume();
        return text(200, "resumed");
    }
    if (request.path == "/stop" && post) {
        gate.stop("stop requested over HTTP (POST /stop)");
        return text(200, "stopping: the pages read are written, then the run exits 3 (resumable with a job id)");
    }
    if (request.path == "/page-size" && post) return page_size(gate, request);
    if (request.path == "/max-load" && post) return max_load(gate, request);
    if (request.path == "/rate" && post) {
        const Value value = value_parameter(request, rate_bounds, OptionId::rate);
        if (!value.number) return text(400, value.problem);
        gate.set_rate(*value.number);
        return text(200, *value.number > 0 ? "rate " + number_text(*value.number) + " rows/s" : "rate: no cap");
    }
    if (request.path == "/max-lag" && post) {
        const Value value = value_parameter(request, max_lag_bounds, OptionId::max_lag);
        if (!value.number) return text(400, value.problem);
        gate.set_max_lag(*value.number);
        return text(200, "max lag " + number_text(*value.number) + " s");
    }
    return text(404, "no such endpoint: " + request.method + " " + request.path +
                         " (GET / (the status page), GET /status, GET /metrics, POST /pause, /resume, /stop, /rate?value=N, /max-lag?value=S, "
                         "/max-load?value=VAR=N[,VAR=N], /page-size?value=N)");
}

}  // namespace rowpump::throttle
