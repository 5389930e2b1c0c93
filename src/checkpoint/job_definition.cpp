#include "checkpoint/job_store.hpp"


#include "encode/worker_options.hpp"
#include "fnv1a.hpp"
#include "mysql/connection.hpp"

namespace rowpump {

namespace {

// FNV-1a (fnv1a.hpp): collisions only matter between two definitions of one job id, where the
// description is compared too.
std::string fingerprint_of(const std::string& text) { return fnv1a_64_hex(text); }

std::string list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + mysql::quote_identifier(name);
    return out;
}

// What a template, big numbers and Redis key names add to the definition; nothing at their defaults, so
// the definitions of jobs created before they existed still match.
std::string payload_and_names(const JobSpec& spec) {
    std::string text;
    if (spec.format == Format::payload_template) text += " '" + spec.payload.template_text + "'";
    if (spec.payload.big_numbers == BigNumbers::string) text += " big-numbers string";
    if (spec.payload.json_columns == JsonColumns::embed) text += " json-columns embed";
    if (spec.payload.csv_null == CsvNull::backslash_n) text += " csv-null \\N";
    const RedisSinkOptions defaults;
    const RedisSinkOptions& redis = spec.sink.redis_only;
    if (redis.list_key != defaults.list_key) text += " list-key " + redis.list_key;
    if (redis.delayed_key != defaults.delayed_key) text += " delayed-key " + redis.delayed_key;
    if (redis.delay_score == DelayScore::seconds) text += " delay-score s";
    if (redis.delayed_members == DelayedMembers::bare) text += " delayed-members bare";
    if (spec.sink.push == PushSide::xadd) text += " stream";
    if (redis.bullmq_prefix != defaults.bullmq_prefix) text += " bullmq-prefix " + redis.bullmq_prefix;
    return text;
}

}  // namespace

JobDefinition define_job(const JobSpec& spec, const ReadPlan& plan) {
    JobDefinition definition;
    definition.job_id = spec.job_id;
    std::vector<std::string> columns;
    for (const auto& column : plan.columns) columns.push_back(column.name);
    std::string text = "table " + plan.table.quoted_name() + " key (" + list(plan.key.columns) + ") columns (" +
                       list(columns) + ")";
    if (!plan.spec.where.empty()) text += " where (" + plan.spec.where + ")";
    text += " -> " + redact_url(spec.sink.uri) + " queue " + spec.sink.queue + " (" +
            format_name(spec.format) + ")";
    if (!spec.task.job_class.empty()) text += " class " + spec.task.job_class;
    if (!spec.task.task.empty()) text += " task " + spec.task.task;
    if (spec.task.sidekiq_timestamps == SidekiqTimestamps::milliseconds) text += " timestamps ms";
    text += worker_options_text(spec.task);
    text += payload_and_names(spec);
    if (!spec.route.priority_column.empty()) {
        text += " priority " + spec.route.priority_column + ":";
        for (const auto& level : spec.route.levels) text += " " + level.name + ">=" + std::to_string(level.min);
    }
    if (spec.route.delay.count() > 0) text += " delay " + std::to_string(spec.route.delay.count()) + "ms";
    if (!spec.route.due_column.empty()) text += " due " + spec.route.due_column;
    definition.description = text;
    definition.fingerprint = fingerprint_of(text);
    definition.key_columns = plan.key_columns();
    definition.lease_timeout = spec.lease_timeout;
    definition.state_prefix = spec.state_prefix;
    return definition;
}

}  // namespace rowpump
