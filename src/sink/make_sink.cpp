#include <string_view>

#include "rowpump/error.hpp"
#include "rowpump/sink.hpp"
#include "sink/sinks.hpp"

namespace rowpump {

namespace {

constexpr std::string_view accepted_forms =
    "expected stdout, file:PATH, redis://[user:pass@]host:port/db or mysql://user:pass@host:port/db";

std::string scheme_of(const std::string& uri) {
    const auto end = uri.find("://");
    return end == std::string::npos ? std::string() : uri.substr(0, end);
}

void require_queue(const SinkSpec& spec, std::string_view what) {
    if (spec.queue.empty())
        throw UsageError("no queue given for " + redact_url(spec.uri) + ": pass --queue NAME (the " +
                         std::string(what) + ")");
}

}  // namespace

MySqlOptions sink_mysql_options(const SinkSpec& spec) {
    MySqlOptions options = MySqlOptions::from_url(spec.uri);
    options.retry_budget = std::chrono::seconds(spec.retry_seconds);
    return options;
}

std::unique_ptr<Sink> make_sink(const SinkSpec& spec) {
    if (spec.uri == "stdout") return make_ndjson_sink("", false);
    if (spec.uri.starts_with("file:")) {
        // file:PATH, and file:///abs/path for those who write file URLs.
        std::string path = spec.uri.substr(spec.uri.starts_with("file://") ? 7 : 5);
        if (path.empty()) throw UsageError("no path in sink 'file:': expected file:PATH");
        return make_ndjson_sink(path, spec.overwrite);
    }
    const std::string scheme = scheme_of(spec.uri);
    if (scheme == "redis") {
        require_queue(spec, "Redis list name, also the prefix of its other keys");
        return make_redis_sink(spec, RedisOptions::from_url(spec.uri));
    }
    if (scheme == "mysql" || scheme == "mariadb") {
        require_queue(spec, "queue table");
        return make_mysql_queue_sink(spec, sink_mysql_options(spec));
    }
    throw UsageError("unsupported sink '" + redact_url(spec.uri) + "': " + std::string(accepted_forms));
}

}  // namespace rowpump
