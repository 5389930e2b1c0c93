// The queue subcommands that run one maintenance step and exit: init, stats, reap, promote, purge and
// requeue-dead. Results go to stdout (one line, or the stats), so scripts and cron jobs can use them.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdio>

#include "cli/queue_source.hpp"
#include "metrics/prometheus_text.hpp"
#include "cli/queue_subcommands.hpp"
#include "mysql/connection.hpp"
#include "backend/redis/redis_queue_keys.hpp"

namespace rowpump::cli {

using config::OptionId;

namespace {

// Counting rows walks the index: at this many a count takes seconds, and "10000000+" says enough.
constexpr std::uint64_t stats_count_limit = 10'000'000;

void print_line(const std::string& text) { std::printf("%s\n", text.c_str()); }

std::string seconds_text(double seconds) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
    return buffer;
}

std::string stats_text(const QueueOptions& options, const QueueSource& source, const QueueStats& stats) {
    const std::string more = stats.capped ? "+" : "";
    std::string text = "queue " + options.queue + " in " + source.redacted + "\n";
    text += "  ready      " + std::to_string(stats.ready) + more;
    if (stats.oldest_ready_seconds) text += "  (oldest available one waited " + seconds_text(*stats.oldest_ready_seconds) + ")";
    text += "\n";
    text += std::string(source.mysql ? "  claimed    " : "  processing ") + std::to_string(stats.in_flight) + more + "\n";
    if (stats.delayed) text += "  delayed    " + std::to_string(*stats.delayed) + "\n";
    if (stats.done) text += "  done       " + std::to_string(*stats.done) + more + "\n";
    text += "  dead       " + std::to_string(stats.dead) + more + "\n";
    if (stats.capped) text += "  (+: counting stopped at the limit; rerun with --exact for exact counts)\n";
    for (const QueueStats::Holder& holder : stats.holders) {
        if (source.mysql)
            text += "  connection " + holder.name + ": " + std::to_string(holder.tasks) + " claimed, oldest claim " +
                    seconds_text(holder.age_seconds) + (holder.alive ? "" : ", CONNECTION GONE (reap to release)") + "\n";
        else
            text += "  consumer " + holder.name + ": " + std::to_string(holder.tasks) + " processing, last beat " +
                    seconds_text(holder.age_seconds) + " ago" + (holder.alive ? "" : ", EXPIRED (reap to recover)") + "\n";
    }
    return text;
}

std::string stats_json(const QueueOptions& options, const QueueSource& source, const QueueStats& stats) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> json(buffer);
    json.StartObject();
    json.Key("queue");
    json.String(options.queue.c_str(), static_cast<rapidjson::SizeType>(options.queue.size()));
    json.Key("source");
    json.String(source.redacted.c_str(), static_cast<rapidjson::SizeType>(source.redacted.size()));
    json.Key("ready");
    json.Uint64(stats.ready);
    json.Key(source.mysql ? "claimed" : "processing");
    json.Uint64(stats.in_flight);
    if (stats.delayed) {
        json.Key("delayed");
        json.Uint64(*stats.delayed);
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
    json.Key(source.mysql ? "owners" : "consumers");
    json.StartArray();
    for (const QueueStats::Holder& holder : stats.holders) {
        json.StartObject();
        json.Key("name");
        json.String(holder.name.c_str(), static_cast<rapidjson::SizeType>(holder.name.size()));
        json.Key("tasks");
        json.Uint64(holder.tasks);
        json.Key(source.mysql ? "oldest_claim_seconds" : "last_beat_seconds_ago");
        json.Double(holder.age_seconds);
        json.Key("alive");
        json.Bool(holder.alive);
        json.EndObject();
    }
    json.EndArray();
    json.EndObject();
    return buffer.GetString();
}

[[noreturn]] void not_for_redis(const char* command, const char* why) {
    throw UsageError(std::string("queue ") + command + " is for MySQL queue tables: " + why);
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

}  // namespace

int run_queue_init(const QueueOptions& options) {
    const QueueSource source = parse_queue_source(options);
    if (source.mysql) {
        MySqlQueue::create_table(*source.mysql, options.queue);
        print_line("queue table " + mysql::quote_identifier(options.queue) + " is ready in " + source.redacted);
        return 0;
    }
    // Redis keys come into being with their first task; opening the queue checks the server is there.
    RedisQueue queue(*source.redis, redis_queue_options(options));
    print_line("Redis queue " + options.queue + " needs no setup (" + source.redacted + "): ready list " +
               redis::ready_list(options.queue) + ", delayed set " + redis::delayed_key(options.delayed_key, options.queue) + ", dead list " +
               redis::dead_list(options.queue));
    return 0;
}

int run_queue_stats(const QueueOptions& options) {
    const QueueSource source = parse_queue_source(options);
    QueueStats stats;
    if (source.mysql) {
        stats = MySqlQueue(*source.mysql, mysql_queue_options(options)).stats(options.exact ? 0 : stats_count_limit);
    } else {
        stats = RedisQueue(*source.redis, redis_queue_options(options))
                    .stats(flag_milliseconds(options.heartbeat_timeout_seconds, OptionId::stats_heartbeat_timeout));
    }
    const std::string format = options.json ? "json" : options.stats_format;
    const std::string text = format == "json"         ? stats_json(options, source, stats) + "\n"
                             : format == "prometheus" ? stats_prometheus(options, stats)
                                                      : stats_text(options, source, stats);
    std::fputs(text.c_str(), stdout);
    return 0;
}

int run_queue_reap(const QueueOptions& options) {
    const QueueSource source = parse_queue_source(options);
    ReapResult result;
    if (source.mysql) {
        result = MySqlQueue(*source.mysql, mysql_queue_options(options)).reap(claim_timeout(options));
    } else {
        result = RedisQueue(*source.redis, redis_queue_options(options))
                     .reap(flag_milliseconds(options.heartbeat_timeout_seconds, OptionId::heartbeat_timeout));
    }
    print_line("released " + std::to_string(result.released) + ", dead " + std::to_string(result.dead));
    return 0;
}

int run_queue_promote(const QueueOptions& options) {
    const QueueSource source = parse_queue_source(options);
    if (source.mysql)
        throw UsageError("queue promote is for Redis queues: MySQL tasks become claimable by themselves at available_at");
    const auto moved = RedisQueue(*source.redis, redis_queue_options(options)).promote();
    print_line("promoted " + std::to_string(moved));
    return 0;
}

int run_queue_purge(const QueueOptions& options) {
    const QueueSource source = parse_queue_source(options);
    if (source.redis) not_for_redis("purge", "Redis forgets a task when it is acknowledged");
    const auto older_than = flag_milliseconds(options.older_than_seconds, OptionId::older_than);
    const auto deleted = MySqlQueue(*source.mysql, mysql_queue_options(options))
                             .purge(std::chrono::duration_cast<std::chrono::seconds>(older_than), options.purge_batch);
    print_line("deleted " + std::to_string(deleted));
    return 0;
}

int run_queue_requeue_dead(const QueueOptions& options) {
    const QueueSource source = parse_queue_source(options);
    const auto moved = source.mysql ? MySqlQueue(*source.mysql, mysql_queue_options(options)).requeue_dead(options.limit)
                                    : RedisQueue(*source.redis, redis_queue_options(options)).requeue_dead(options.limit);
    print_line("requeued " + std::to_string(moved));
    return 0;
}

}  // namespace rowpump::cli
