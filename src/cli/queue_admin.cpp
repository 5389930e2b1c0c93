// The queue subcommands that run one maintenance step and exit: init, stats, reap, promote, purge and
// requeue-dead. Results go to stdout (one line, or the stats), so scripts and cron jobs can use them.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdio>
#include <memory>

#include "backend/queue_source.hpp"
#include "backend/registry/registry.hpp"
#include "cli/queue_source.hpp"
#include "cli/queue_subcommands.hpp"
#include "metrics/prometheus_text.hpp"

namespace rowpump::cli {

using config::OptionId;

namespace {

void print_line(const std::string& text) { std::printf("%s\n", text.c_str()); }

// The source as the commands name it, and the words its backend uses for its holders.
struct Shown {
    std::string source;
    StatsWords words;
};

std::string stats_text(const QueueOptions& options, const Shown& shown, const QueueAdmin& admin,
                       const QueueStats& stats) {
    const std::string more = stats.capped ? "+" : "";
    std::string text = "queue " + options.queue + " in " + shown.source + "\n";
    if (stats.stream_length) text += "  length     " + std::to_string(*stats.stream_length) + " (a stream, group " + options.group + ")\n";
    text += "  ready      " + std::to_string(stats.ready) + more;
    if (stats.oldest_ready_seconds) text += "  (oldest available one waited " + seconds_text(*stats.oldest_ready_seconds) + ")";
    text += "\n";
    const std::size_t width = shown.words.in_flight.size();  // the counts line up at column 13
    text += "  " + shown.words.in_flight + std::string(width < 11 ? 11 - width : 1, ' ') +
            std::to_string(stats.in_flight) + more + "\n";
    if (stats.delayed) text += "  delayed    " + std::to_string(*stats.delayed) + "\n";
    if (stats.done) text += "  done       " + std::to_string(*stats.done) + more + "\n";
    text += "  dead       " + std::to_string(stats.dead) + more + "\n";
    if (stats.capped) text += "  (+: counting stopped at the limit; rerun with --exact for exact counts)\n";
    for (const QueueStats::Holder& holder : stats.holders) text += admin.holder_line(holder) + "\n";
    return text;
}

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void string_field(JsonWriter& json, const char* key, const std::string& value) {
    json.Key(key);
    json.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

std::string stats_json(const QueueOptions& options, const Shown& shown, const QueueStats& stats) {
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    json.StartObject();
    string_field(json, "queue", options.queue);
    string_field(json, "source", shown.source);
    json.Key("ready");
    json.Uint64(stats.ready);
    json.Key(shown.words.in_flight.c_str());
    json.Uint64(stats.in_flight);
    if (stats.delayed) {
        json.Key("delayed");
        json.Uint64(*stats.delayed);
    }
    if (stats.stream_length) {
        json.Key("stream_length");
        json.Uint64(*stats.stream_length);
    }
    if (stats.done) {
        json.Key("done");
        json.Uint64(*stats.done);
    }
    json.Key("dead");
    json.Uint64(stats.dead);
    json.Key("counts_capped");
    json.Bool(stats.capped);
    json.Key("oldest_ready_seconds");
    if (stats.oldest_ready_seconds) json.Double(*stats.oldest_ready_seconds);
    else json.Null();
    json.Key(shown.words.holders.c_str());
    json.StartArray();
    for (const QueueStats::Holder& holder : stats.holders) {
        json.StartObject();
        string_field(json, "name", holder.name);
        json.Key("tasks");
        json.Uint64(holder.tasks);
        json.Key(shown.words.holder_age.c_str());
        json.Double(holder.age_seconds);
        json.Key("alive");
        json.Bool(holder.alive);
        json.EndObject();
    }
    json.EndArray();
    json.EndObject();
    return buffer.GetString();
}

// The depths in the Prometheus text format, under the names that the common exporters give the same
// things, so that existing dashboards and alerts find them: Sidekiq's (sidekiq-prometheus-exporter:
// sidekiq_queue_enqueued_jobs, sidekiq_queue_latency_seconds, sidekiq_scheduled_jobs, sidekiq_dead_jobs,
// labelled name) and Celery's (celery-exporter: celery_queue_length, labelled queue_name); and every state
// under rowpump's own name. A capped count is the cap: a gauge has no "or more".
std::string stats_prometheus(const QueueOptions& options, const QueueStats& stats) {
    metrics::PrometheusText page;
    const metrics::Labels name{{"name", options.queue}};
    const auto gauge = [&](const std::string& family, const std::string& help, double value,
                           const metrics::Labels& labels) {
        page.family(family, "gauge", help);
        page.sample(family, value, labels);
    };
    gauge("sidekiq_queue_enqueued_jobs", "Tasks ready in the queue (rowpump: ready).", static_cast<double>(stats.ready), name);
    gauge("sidekiq_queue_latency_seconds", "Seconds the oldest ready task has waited (0 when none is ready).",
          stats.oldest_ready_seconds.value_or(0), name);
    if (stats.delayed)
        gauge("sidekiq_scheduled_jobs", "Tasks waiting for their due time (rowpump: delayed).",
              static_cast<double>(*stats.delayed), name);
    gauge("sidekiq_dead_jobs", "Tasks that ran out of attempts (rowpump: dead).", static_cast<double>(stats.dead), name);
    gauge("celery_queue_length", "Tasks ready in the queue (rowpump: ready).", static_cast<double>(stats.ready),
          {{"queue_name", options.queue}});
    page.family("rowpump_queue_tasks", "gauge", "Tasks of the queue by state.");
    const auto state = [&](const char* label, std::uint64_t value) {
        page.sample("rowpump_queue_tasks", static_cast<double>(value), {{"queue", options.queue}, {"state", label}});
    };
    state("ready", stats.ready);
    state("in_flight", stats.in_flight);
    if (stats.delayed) state("delayed", *stats.delayed);
    if (stats.done) state("done", *stats.done);
    state("dead", stats.dead);
    gauge("rowpump_queue_oldest_ready_seconds", "Seconds the oldest ready task has waited (0 when none is ready).",
          stats.oldest_ready_seconds.value_or(0), {{"queue", options.queue}});
    gauge("rowpump_queue_counts_capped", "1 when a count stopped at its limit (rerun with --exact).",
          stats.capped ? 1 : 0, {{"queue", options.queue}});
    return page.text();
}

// The queue's one-step maintenance, from its backend (the registry picks it by --source).
std::unique_ptr<QueueAdmin> open_admin(const ConsumerOptions& consumer) {
    return backend_for(consumer.source).open_admin(consumer);
}

}  // namespace

int run_queue_init(const QueueOptions& options) {
    print_line(open_admin(consumer_options(options))->init());
    return 0;
}

int run_queue_stats(const QueueOptions& options) {
    const ConsumerOptions consumer = consumer_options(options);
    const auto admin = open_admin(consumer);
    const QueueStats stats = admin->stats(options.exact);
    const Shown shown{redacted(consumer.source), admin->words()};
    const std::string format = options.json ? "json" : options.stats_format;
    const std::string text = format == "json"         ? stats_json(options, shown, stats) + "\n"
                             : format == "prometheus" ? stats_prometheus(options, stats)
                                                      : stats_text(options, shown, *admin, stats);
    std::fputs(text.c_str(), stdout);
    return 0;
}

int run_queue_reap(const QueueOptions& options) {
    const ConsumerOptions consumer = consumer_options(options);
    check_claim_timeout(consumer);
    const ReapResult result = open_admin(consumer)->reap();
    print_line("released " + std::to_string(result.released) + ", dead " + std::to_string(result.dead));
    return 0;
}

int run_queue_promote(const QueueOptions& options) {
    print_line("promoted " + std::to_string(open_admin(consumer_options(options))->promote()));
    return 0;
}

int run_queue_purge(const QueueOptions& options) {
    const auto admin = open_admin(consumer_options(options));
    const auto older_than = flag_milliseconds(options.older_than_seconds, OptionId::older_than);
    const auto deleted = admin->purge(std::chrono::duration_cast<std::chrono::seconds>(older_than), options.purge_batch);
    print_line("deleted " + std::to_string(deleted));
    return 0;
}

int run_queue_requeue_dead(const QueueOptions& options) {
    print_line("requeued " + std::to_string(open_admin(consumer_options(options))->requeue_dead(options.limit)));
    return 0;
}

}  // namespace rowpump::cli
