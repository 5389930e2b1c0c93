#include <cmath>
#include <set>

#include "config/option_checks.hpp"
#include "encode/worker_options.hpp"
#include "job/job_sections.hpp"
#include "backend/registry/registry.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis/redis_wait.hpp"
#include "job/option_fields.hpp"
#include "route/router.hpp"
#include "rowpump/error.hpp"

namespace rowpump::job {

namespace {

// What the queue name means for the sink's kind; empty when the sink takes no queue.
std::string check_sink_uri(const Field& field, const std::string& uri) {
    SinkSpec sink;
    sink.uri = uri;
    try {
        const Backend& backend = backend_for(sink);
        backend.parse_target(sink);
        return std::string(backend.queue_meaning());
    } catch (const ConfigError&) {
        throw;
    } catch (const UsageError& error) {
        field.fail(error.what());
    }
}

std::vector<PriorityLevel> levels_from_list(const Field& field) {
    const auto items = field.items();
    std::vector<PriorityLevel> levels;
    std::set<std::string> names;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Section item = items[i].section({"name", "min"});
        PriorityLevel level;
        level.name = item.required("name", "the level's name: rows go to the Redis list <queue>:p:<name>").text();
        if (!names.insert(level.name).second) items[i].fail("level name '" + level.name + "' is used twice: expected one name per level");
        const bool last = i + 1 == items.size();
        if (auto min = item.optional("min")) level.min = min->number();
        else if (!last) item.required("min", "rows whose value is >= min go to this level; only the last level may omit it");
        levels.push_back(level);
    }
    at_field(field, [&] { check_priority_order(levels); });
    return levels;
}

// The worker options (sidekiq_retry, celery_kwargs, ...), each read where it is written; the last one read.
std::optional<Field> read_worker_options(const Section& sink, TaskSpec& task) {
    std::optional<Field> last;
    std::string text;
    if (auto retry = read_option(sink, OptionId::sidekiq_retry, text)) {
        at_field(*retry, [&] { read_sidekiq_retry(text, task.sidekiq); });
        last = retry;
    }
    if (auto dead = read_option(sink, OptionId::sidekiq_dead, text)) {
        at_field(*dead, [&] { read_sidekiq_dead(text, task.sidekiq); });
        last = dead;
    }
    std::vector<std::string> pairs;
    if (auto fields = read_option(sink, OptionId::sidekiq_field, pairs)) {
        at_field(*fields, [&] { read_sidekiq_fields(pairs, task.sidekiq); });
        last = fields;
    }
    if (auto tags = read_option(sink, OptionId::sidekiq_tags, task.sidekiq.tags)) last = tags;
    if (auto expires = read_option(sink, OptionId::celery_expires, task.celery.expires_seconds)) last = expires;
    if (auto kwargs = read_option(sink, OptionId::celery_kwargs, task.celery.kwargs)) last = kwargs;
    if (auto key = read_option(sink, OptionId::routing_key, task.celery.routing_key)) last = key;
    if (auto priority = read_option(sink, OptionId::celery_priority, text)) {
        at_field(*priority, [&] { read_celery_priority(text, task.celery); });
        last = priority;
    }
    if (auto column = read_option(sink, OptionId::celery_priority_column, task.celery.priority_column)) last = column;
    if (auto name = read_option(sink, OptionId::job_name, task.bullmq.job_name)) last = name;
    if (auto id = read_option(sink, OptionId::bullmq_job_id, task.bullmq.job_id)) last = id;
    return last;
}

// job_class (sidekiq), task (celery), sidekiq_timestamps: checked here, so the error names the line.
// `format` is where a missing class or task is reported.
void read_task(const Section& sink, const Field& format, JobSpec& spec) {
    std::optional<Field> last;
    if (auto job_class = read_option(sink, OptionId::job_class, spec.task.job_class)) last = job_class;
    if (auto task = read_option(sink, OptionId::task, spec.task.task)) last = task;
    if (auto timestamps = read_option(sink, OptionId::sidekiq_timestamps, spec.task.sidekiq_timestamps)) last = timestamps;
    if (auto field = read_worker_options(sink, spec.task)) last = field;
    at_field(last ? *last : format, [&] { check_task_spec(spec.format, spec.task); });
}

// docs/payloads-and-names.md: template, big_numbers and the Redis names, each checked where it is written.
void read_payload_and_names(const Section& sink, const std::optional<Field>& format, JobSpec& spec) {
    const auto text = read_option(sink, OptionId::payload_template, spec.payload.template_text);
    if (text || format) at_field(text ? *text : *format, [&] { check_payload_options(spec.format, spec.payload); });
    read_option(sink, OptionId::big_numbers, spec.payload.big_numbers);
    read_option(sink, OptionId::json_columns, spec.payload.json_columns);
    if (auto null = read_option(sink, OptionId::csv_null, spec.payload.csv_null))
        at_field(*null, [&] { check_payload_options(spec.format, spec.payload); });
    if (auto key = read_option(sink, OptionId::list_key, spec.sink.redis_only.list_key))
        at_field(*key, [&] { redis::list_key(spec.sink.redis_only.list_key, "queue", "level"); });
    if (auto key = read_option(sink, OptionId::delayed_key, spec.sink.redis_only.delayed_key))
        at_field(*key, [&] { redis::delayed_key(spec.sink.redis_only.delayed_key, "queue"); });
    read_option(sink, OptionId::delay_score, spec.sink.redis_only.delay_score);
    read_option(sink, OptionId::delayed_members, spec.sink.redis_only.delayed_members);
    read_option(sink, OptionId::stream_maxlen, spec.sink.redis_only.stream_maxlen);
    read_option(sink, OptionId::bullmq_prefix, spec.sink.redis_only.bullmq_prefix);
    if (auto prefix = read_option(sink, OptionId::state_prefix, spec.state_prefix))
        at_field(*prefix, [&] { redis::check_state_prefix(spec.state_prefix); });
    if (auto shards = read_option(sink, OptionId::shards, spec.sink.redis_only.shards))
        at_field(*shards, [&] {
            config::check_shards_apply(spec.sink.redis_only.shards, spec.sink.uri, backend_for(spec.sink).traits().shards);
        });
    std::string redis_wait;
    if (auto wait = read_option(sink, OptionId::redis_wait, redis_wait))
        at_field(*wait, [&] {
            redis::parse_redis_wait(redis_wait, spec.sink);
            config::check_redis_wait_applies(spec.sink, backend_for(spec.sink).traits().waits_for_replicas);
        });
}

}  // namespace

void read_priority(const Field& field, RouteSpec& route) {
    const Section priority = field.section(config::section_keys("sink.priority"));
    if (!read_option(priority, OptionId::priority_column, route.priority_column))
        priority.required("column", "the numeric column whose value picks the level");
    const Field levels = priority.required(
        "levels", "the levels, highest first, e.g. [{name: high, min: 1000}, {name: mid, min: 100}, {name: low}]");
    if (levels.is_list()) {
        route.levels = levels_from_list(levels);
    } else {
        at_field(levels, [&] { route.levels = parse_priority_levels(levels.text()); });
    }
    if (route.levels.size() < 2)
        levels.fail("expected at least two levels, e.g. [{name: high, min: 1000}, {name: low}]");
}

void read_sink(const Field& field, JobSpec& spec) {
    const Section sink = field.section(config::section_keys("sink"));
    const Field uri = sink.required("uri", "where rows go: stdout, file:PATH, redis://host:port/db (or rediss://, "
                                           "redis+unix://, redis-sentinel://, redis-cluster://) or mysql://user@host:port/db");
    spec.sink.uri = uri.text();
    const std::string queue_meaning = check_sink_uri(uri, spec.sink.uri);
    const auto format = read_option(sink, OptionId::format, spec.format);
    read_task(sink, format ? *format : field, spec);
    read_payload_and_names(sink, format, spec);
    // A worker format's queue defaults to its framework's ("default", "celery").
    const bool worker_format = queue_layout(spec.format) != QueueLayout::rowpump;
    if (!queue_meaning.empty() && !worker_format) spec.sink.queue = sink.required("queue", queue_meaning).text();
    else read_option(sink, OptionId::queue, spec.sink.queue);
    if (auto overwrite = read_option(sink, OptionId::overwrite, spec.sink.overwrite))
        at_field(*overwrite, [&] { config::check_overwrite_applies(spec.sink, backend_for(spec.sink).traits().replaces_files); });
    if (auto push = read_option(sink, OptionId::push, spec.sink.push))
        at_field(*push, [&] { config::check_push_applies(spec.format, true); });
    if (auto priority = sink.optional("priority")) read_priority(*priority, spec.route);
    double delay_seconds = 0;
    if (read_option(sink, OptionId::delay, delay_seconds))
        spec.route.delay = std::chrono::milliseconds(std::llround(delay_seconds * 1000));
    if (auto due_column = read_option(sink, OptionId::due_column, spec.route.due_column)) {
        if (spec.route.delay.count() > 0)
            due_column->fail("both delay and due_column are given: expected one of them (a fixed delay, or each "
                             "row's own due time)");
    }
}

}  // namespace rowpump::job
