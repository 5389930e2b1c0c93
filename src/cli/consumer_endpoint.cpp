#include "cli/consumer_endpoint.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "backend/queue_source.hpp"
#include "backend/registry/registry.hpp"
#include "config/option_schema.hpp"
#include "http/web_page.hpp"
#include "json_members.hpp"
#include "metrics/prometheus_text.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using clock = std::chrono::steady_clock;

// The queue is counted at most this often, however many pages poll /status.
constexpr auto depths_interval = std::chrono::seconds(1);

using json::member;

http::Response text(int code, const std::string& body) { return {code, "text/plain", body + "\n"}; }

void write_depths(Writer& json, const QueueStats& stats) {
    json.Key("depths");
    json.StartObject();
    member(json, "ready", stats.ready);
    member(json, "in_flight", stats.in_flight);
    if (stats.delayed) member(json, "delayed", *stats.delayed);
    if (stats.done) member(json, "done", *stats.done);
    member(json, "dead", stats.dead);
    if (stats.stream_length) member(json, "stream_length", *stats.stream_length);
    json.Key("capped");
    json.Bool(stats.capped);
    json.Key("oldest_ready_seconds");
    if (stats.oldest_ready_seconds) json.Double(*stats.oldest_ready_seconds);
    else json.Null();
    json.EndObject();
}

void write_dead_tasks(Writer& json, const std::vector<DeadTask>& tasks, clock::time_point now) {
    json.Key("dead_tasks");
    json.StartArray();
    for (const DeadTask& task : tasks) {
        json.StartObject();
        member(json, "id", task.id);
        json.Key("attempt");
        json.Int(task.attempt);
        member(json, "error", task.error);
        member(json, "payload", task.payload);
        member(json, "seconds_ago", std::chrono::duration<double>(now - task.when).count());
        json.EndObject();
    }
    json.EndArray();
}

}  // namespace

ConsumerEndpoint::ConsumerEndpoint(const QueueOptions& options, const ConsumerOptions& consumer,
                                   const metrics::ConsumerMetrics& counters, const DeadTasks& dead)
    : options_(options), consumer_(consumer), counters_(counters), dead_(dead) {
    server_ = std::make_unique<http::Server>(
        options.http, [this](const http::Request& request) { return handle(request); },
        "consumer status page (/), /status, /metrics and POST /requeue-dead", config::OptionId::metrics_http);
}

ConsumerEndpoint::~ConsumerEndpoint() { server_.reset(); }

http::Response ConsumerEndpoint::handle(const http::Request& request) {
    if (auto page = http::web_page(request)) return *page;
    const bool get = request.method == "GET";
    if (get && request.path == "/status") return status();
    if (get && request.path == "/metrics")
        return {200, metrics::PrometheusText::content_type, counters_.page(options_.queue)};
    if (request.method == "POST" && request.path == "/requeue-dead") return requeue_dead(request);
    return text(404, "no such endpoint: " + request.method + " " + request.path +
                         " (GET / (the status page), GET /status, GET /metrics, POST /requeue-dead[?limit=N])");
}

QueueAdmin& ConsumerEndpoint::admin() {
    if (!admin_) admin_ = backend_for(consumer_.source).open_admin(consumer_);
    return *admin_;
}

http::Response ConsumerEndpoint::status() {
    const auto now = clock::now();
    const metrics::ConsumerMetrics::Counts counts = counters_.counts();
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    json.StartObject();
    member(json, "kind", std::string("consumer"));  // the page (GET /) shows a consumer by it
    member(json, "queue", options_.queue);
    member(json, "source", redacted(consumer_.source));
    member(json, "seconds", std::chrono::duration<double>(now - started_).count());
    member(json, "processed", counts.outcomes.done);
    member(json, "failed", counts.outcomes.failed());
    member(json, "retried", counts.outcomes.retried);
    member(json, "dead", counts.outcomes.dead);
    member(json, "stale", counts.outcomes.stale);
    member(json, "in_flight", counts.in_flight);
    json.Key("latency");
    json.StartObject();
    member(json, "count", counts.timed);
    member(json, "mean_seconds", counts.timed > 0 ? counts.seconds_sum / static_cast<double>(counts.timed) : 0.0);
    json.EndObject();
    {
        std::lock_guard lock(mutex_);
        if (now - depths_at_ >= depths_interval) {
            depths_at_ = now;
            try {
                depths_ = admin().stats(false);
                depths_error_.clear();
            } catch (const std::exception& error) {
                admin_.reset();  // a connection that failed is opened again next time
                depths_.reset();
                depths_error_ = error.what();
            }
        }
        if (depths_) write_depths(json, *depths_);
        if (!depths_error_.empty()) member(json, "depths_error", depths_error_);
    }
    write_dead_tasks(json, dead_.newest(), now);
    json.EndObject();
    return {200, "application/json", std::string(buffer.GetString(), buffer.GetSize()) + "\n"};
}

http::Response ConsumerEndpoint::requeue_dead(const http::Request& request) {
    const std::vector<std::string> limits = request.values("limit");
    std::uint64_t limit = 0;  // all, as `queue requeue-dead` without --limit
    if (limits.size() > 1 || (limits.size() == 1 && (limits[0].empty() ||
                                                     limits[0].find_first_not_of("0123456789") != std::string::npos ||
                                                     limits[0].size() > 18)))
        return text(400, "/requeue-dead takes ?limit=N at most once, N a whole number (0: all), as queue requeue-dead --limit");
    if (limits.size() == 1) limit = std::stoull(limits[0]);
    std::lock_guard lock(mutex_);
    try {
        const std::uint64_t moved = admin().requeue_dead(limit);
        depths_at_ = {};  // the next /status counts again
        return text(200, "requeued " + std::to_string(moved));
    } catch (const std::exception& error) {
        admin_.reset();
        return text(500, std::string("requeue-dead failed: ") + error.what());
    }
}

}  // namespace rowpump::cli
