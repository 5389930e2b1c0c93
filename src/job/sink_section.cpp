#include <charconv>
#include <cmath>
#include <set>

#include "job/job_sections.hpp"
#include "backend/registry/registry.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "route/router.hpp"
#include "rowpump/error.hpp"

namespace rowpump::job {

namespace {

// Ten years: the due time in milliseconds always fits, whatever the clock says.
constexpr double max_delay_seconds = 10.0 * 365 * 86400;

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

std::string number_text(double value) {
    char buffer[32];
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::vector<PriorityLevel> levels_from_list(const Field& field) {
    const auto items = field.items();
    std::vector<PriorityLevel> levels;
    std::set<std::string> names;
    // parse_priority_levels checks the order of the thresholds; level names play no part in that check.
    std::string order_check;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Section item = items[i].section({"name", "min"});
        PriorityLevel level;
        level.name = item.required("name", "the level's name: rows go to the Redis list <queue>:p:<name>").text();
        if (!names.insert(level.name).second) items[i].fail("level name '" + level.name + "' is used twice: expected one name per level");
        const bool last = i + 1 == items.size();
        if (auto min = item.optional("min")) level.min = min->number();
        else if (!last) item.required("min", "rows whose value is >= min go to this level; only the last level may omit it");
        order_check += (i ? "," : "") + std::string("level") + std::to_string(i);
        if (item.has("min")) order_check += ":" + number_text(level.min);
        levels.push_back(level);
    }
    try {
        parse_priority_levels(order_check);
    } catch (const UsageError& error) {
        field.fail(error.what());
    }
    return levels;
}

// job_class (sidekiq), task (celery), sidekiq_timestamps: checked here, so the error names the line.
// `format` is where a missing class or task is reported.
void read_task(const Section& sink, const Field& format, JobSpec& spec) {
    std::optional<Field> last;
    if (auto job_class = sink.optional("job_class")) {
        spec.task.job_class = job_class->text();
        last = job_class;
    }
    if (auto task = sink.optional("task")) {
        spec.task.task = task->text();
        last = task;
    }
    if (auto timestamps = sink.optional("sidekiq_timestamps")) {
        spec.task.sidekiq_timestamps = timestamps->choice({"seconds", "ms"}) == "ms" ? SidekiqTimestamps::milliseconds
                                                                                     : SidekiqTimestamps::seconds;
        last = timestamps;
    }
    try {
        check_task_spec(spec.format, spec.task);
    } catch (const UsageError& error) {
        (last ? *last : format).fail(error.what());
    }
}

// A library check's UsageError as a ConfigError at the field it is about.
template <class Check>
void at_field(const Field& field, Check&& check) {
    try {
        check();
    } catch (const ConfigError&) {
        throw;
    } catch (const UsageError& error) {
        field.fail(error.what());
    }
}

// docs/payloads-and-names.md: template, big_numbers and the Redis names, each checked where it is written.
void read_payload_and_names(const Section& sink, const std::optional<Field>& format, JobSpec& spec) {
    const auto text = sink.optional("template");
    if (text) spec.payload.template_text = text->text();
    if (text || format) at_field(text ? *text : *format, [&] { check_payload_options(spec.format, spec.payload); });
    if (auto big = sink.optional("big_numbers")) spec.payload.big_numbers = parse_big_numbers(big->choice({"number", "string"}));
    if (auto mode = sink.optional("json_columns"))
        spec.payload.json_columns = parse_json_columns(mode->choice({"string", "embed"}));
    if (auto null = sink.optional("csv_null")) {
        spec.payload.csv_null = parse_csv_null(null->choice({"empty", "\\N"}));
        at_field(*null, [&] { check_payload_options(spec.format, spec.payload); });
    }
    if (auto key = sink.optional("list_key")) {
        spec.sink.list_key = key->text();
        at_field(*key, [&] { redis::list_key(spec.sink.list_key, "queue", "level"); });
    }
    if (auto key = sink.optional("delayed_key")) {
        spec.sink.delayed_key = key->text();
        at_field(*key, [&] { redis::delayed_key(spec.sink.delayed_key, "queue"); });
    }
    if (auto unit = sink.optional("delay_score"))
        spec.sink.delay_score = unit->choice({"ms", "s"}) == "s" ? DelayScore::seconds : DelayScore::milliseconds;
    if (auto members = sink.optional("delayed_members"))
        spec.sink.delayed_members = members->choice({"tagged", "bare"}) == "bare" ? DelayedMembers::bare : DelayedMembers::tagged;
    if (auto prefix = sink.optional("state_prefix")) {
        spec.state_prefix = prefix->text();
        at_field(*prefix, [&] { redis::check_state_prefix(spec.state_prefix); });
    }
}

}  // namespace

void read_priority(const Field& field, RouteSpec& route) {
    const Section priority = field.section({"column", "levels"});
    route.priority_column = priority.required("column", "the numeric column whose value picks the level").text();
    const Field levels = priority.required(
        "levels", "the levels, highest first, e.g. [{name: high, min: 1000}, {name: mid, min: 100}, {name: low}]");
    if (levels.is_list()) {
        route.levels = levels_from_list(levels);
    } else {
        try {
            route.levels = parse_priority_levels(levels.text());
        } catch (const ConfigError&) {
            throw;
        } catch (const UsageError& error) {
            levels.fail(error.what());
        }
    }
    if (route.levels.size() < 2)
        levels.fail("expected at least two levels, e.g. [{name: high, min: 1000}, {name: low}]");
}

void read_sink(const Field& field, JobSpec& spec) {
    const Section sink =
        field.section({"uri", "queue", "format", "push", "priority", "delay", "due_column", "overwrite", "job_class",
                       "task", "sidekiq_timestamps", "template", "big_numbers", "json_columns", "csv_null",
                       "list_key", "delayed_key", "delay_score", "delayed_members", "state_prefix"});
    const Field uri = sink.required("uri", "where rows go: stdout, file:PATH, redis://host:port/db or mysql://user@host:port/db");
    spec.sink.uri = uri.text();
    const std::string queue_meaning = check_sink_uri(uri, spec.sink.uri);
    const auto format = sink.optional("format");
    if (format) spec.format = parse_format(format->choice({"json", "csv", "sidekiq", "celery", "template"}));
    read_task(sink, format ? *format : field, spec);
    read_payload_and_names(sink, format, spec);
    // A worker format's queue defaults to its framework's ("default", "celery").
    const bool worker_format = queue_layout(spec.format) != QueueLayout::rowpump;
    if (!queue_meaning.empty() && !worker_format) spec.sink.queue = sink.required("queue", queue_meaning).text();
    else if (auto queue = sink.optional("queue")) spec.sink.queue = queue->text();
    if (auto overwrite = sink.optional("overwrite")) {
        if (!backend_for(spec.sink).traits().replaces_files)
            overwrite->fail("only a file:PATH sink replaces anything: remove overwrite, or write to a file");
        spec.sink.overwrite = overwrite->choice({"true", "false"}) == "true";
    }

    if (auto push = sink.optional("push")) {
        if (worker_format)
            push->fail("push does not apply to format " + format_name(spec.format) +
                       ": its client LPUSHes and its workers BRPOP, so rowpump does the same; remove push");
        spec.sink.push = push->choice({"rpush", "lpush"}) == "lpush" ? PushSide::left : PushSide::right;
    }
    if (auto priority = sink.optional("priority")) read_priority(*priority, spec.route);
    if (auto delay = sink.optional("delay"))
        spec.route.delay = std::chrono::milliseconds(std::llround(delay->number(0, max_delay_seconds) * 1000));
    if (auto due_column = sink.optional("due_column")) {
        spec.route.due_column = due_column->text();
        if (spec.route.delay.count() > 0)
            due_column->fail("both delay and due_column are given: expected one of them (a fixed delay, or each "
                             "row's own due time)");
    }
}

}  // namespace rowpump::job
