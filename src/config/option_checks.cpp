#include "config/option_checks.hpp"

#include "rowpump/options.hpp"

namespace rowpump::config {

namespace {

OptionMessage joined(OptionMessage first, const OptionMessage& rest) {
    first.insert(first.end(), rest.begin(), rest.end());
    return first;
}

// "--delay-score names" or "--list-key and --delay-score name".
OptionMessage named_options_verb(const std::vector<OptionId>& options) {
    return joined(listed(options), {options.size() == 1 ? " names" : " name"});
}

}  // namespace

void check_push_applies(Format format, bool push_given) {
    if (!push_given || queue_layout(format) == QueueLayout::rowpump) return;
    throw OptionError({OptionId::push, " does not apply to ", OptionId::format, " " + format_name(format) +
                       ": its client LPUSHes and its workers BRPOP, so rowpump does the same; remove ", OptionId::push});
}

std::vector<OptionId> redis_name_options_given(const RedisKeyNames& names) {
    const RedisKeyNames defaults;
    std::vector<OptionId> given;
    if (names.list_key != defaults.list_key) given.push_back(OptionId::list_key);
    if (names.delayed_key != defaults.delayed_key) given.push_back(OptionId::delayed_key);
    if (names.delay_score != defaults.delay_score) given.push_back(OptionId::delay_score);
    return given;
}

std::vector<OptionId> redis_name_options_given(const SinkSpec& sink) {
    std::vector<OptionId> given = redis_name_options_given(static_cast<const RedisKeyNames&>(sink.redis_only));
    if (sink.redis_only.delayed_members != RedisSinkOptions{}.delayed_members)
        given.push_back(OptionId::delayed_members);
    return given;
}

void check_redis_names_apply(const SinkSpec& sink, bool redis_sink) {
    const auto given = redis_name_options_given(sink);
    if (redis_sink || given.empty()) return;
    throw OptionError(joined(named_options_verb(given), {" Redis keys, and " + redact_url(sink.uri) +
                                                         " has none: drop " + (given.size() == 1 ? "it" : "them") +
                                                         ", or write to a redis:// sink"}));
}

void check_redis_names_apply(const std::vector<OptionId>& given, const std::string& uri, bool redis_queue) {
    if (redis_queue || given.empty()) return;
    throw OptionError(joined(named_options_verb(given), {" Redis keys, and " + redact_url(uri) +
                                                         " is a MySQL queue table, which has none: drop " +
                                                         (given.size() == 1 ? "it" : "them")}));
}

void check_redis_names_fit_format(const SinkSpec& sink, const std::string& format) {
    check_redis_names_fit_format(redis_name_options_given(sink), format);
}

void check_redis_names_fit_format(const std::vector<OptionId>& given, const std::string& format) {
    if (given.empty()) return;
    throw OptionError(joined(named_options_verb(given),
                             {" rowpump's own keys, and ", OptionId::format, " " + format + " writes " + format +
                                                                                "'s: drop " +
                                                                                (given.size() == 1 ? "it" : "them")}));
}

void check_priority_fits_format(const std::string& format, bool priority_routing) {
    if (!priority_routing) return;
    throw OptionError({"priority routing (", OptionId::priority_column, ", ", OptionId::priority,
                       ") cannot be combined with ", OptionId::format, " " + format +
                       ": its workers choose queues by name; run one backfill per queue (", OptionId::queue, ", ",
                       OptionId::where, ")"});
}

void check_state_prefix_applies(const JobSpec& spec) {
    if (!spec.job_id.empty() || spec.state_prefix == JobSpec{}.state_prefix) return;
    throw OptionError({OptionId::state_prefix, " names the keys of a job's state, and there is no job: add ",
                       OptionId::job_id, ", or drop ", OptionId::state_prefix});
}

void check_overwrite_applies(const SinkSpec& sink, bool file_sink) {
    if (!sink.overwrite || file_sink) return;
    throw OptionError({OptionId::overwrite, " replaces an existing file:PATH sink, and " + redact_url(sink.uri) +
                                                " is not one: remove ",
                       OptionId::overwrite});
}

void check_redis_wait_applies(const SinkSpec& sink, bool waits_for_replicas) {
    if (sink.redis_only.wait_replicas == 0 || waits_for_replicas) return;
    throw OptionError({OptionId::redis_wait, " makes each page wait for the replicas of a Redis server, and " +
                                                 redact_url(sink.uri) +
                                                 " is not one (redis://, rediss://, redis+unix:// or "
                                                 "redis-sentinel://): remove ",
                       OptionId::redis_wait});
}

void check_shards_apply(std::size_t shards, const std::string& uri, bool spreads_shards) {
    if (shards == 0 || spreads_shards) return;
    throw OptionError({OptionId::shards, " spreads a queue over the hash slots of a Redis Cluster, and " +
                                             redact_url(uri) + " is not one (redis-cluster://): remove ",
                       OptionId::shards});
}

void check_lag_query_applies(const ThrottleSpec& throttle) {
    if (throttle.lag_query.empty() || !throttle.replicas.empty()) return;
    throw OptionError({OptionId::lag_query, " runs on the replicas, and none is given: add ", OptionId::replica});
}

void check_stream_route(const JobSpec& spec) {
    if (spec.sink.push != PushSide::xadd) return;
    if (spec.route.delay.count() > 0 || !spec.route.due_column.empty())
        throw OptionError({"a stream has no due times, and ", spec.route.due_column.empty() ? OptionId::delay : OptionId::due_column,
                           " delays rows: drop it, or push to lists (", OptionId::push, " rpush)"});
    if (!spec.route.priority_column.empty() || !spec.route.levels.empty())
        throw OptionError({"a stream is one sequence of entries and has no priority lists: drop ", OptionId::priority,
                           " and ", OptionId::priority_column, ", or push to lists (", OptionId::push, " rpush)"});
}

void check_expiry_after_delay(const JobSpec& spec) {
    const double expires_ms = spec.task.celery.expires_seconds * 1000;
    if (expires_ms > 0 && static_cast<double>(spec.route.delay.count()) >= expires_ms)
        throw OptionError({OptionId::celery_expires, " counts from enqueueing and is not past ", OptionId::delay,
                           ": every task would be revoked when due; give a longer expiry or a shorter delay"});
}

void check_job_options(const JobSpec& spec) {
    const bool job = !spec.job_id.empty();
    if (spec.resume && !job) throw OptionError({OptionId::resume, " needs the job id of the job to resume"});
    if (spec.follow && job)
        throw OptionError({OptionId::follow, " cannot be combined with ", OptionId::job_id,
                           " yet: the passes over rows added during the run are not kept in the job store; run the "
                           "job, then a second one over the new rows"});
    if (spec.consistent_snapshot && job)
        throw OptionError({OptionId::consistent_snapshot, " cannot be combined with ", OptionId::job_id,
                           ": a job that is resumed, or shared by several processes, reads in more than one snapshot; "
                           "choose one of the two"});
    if (spec.consistent_snapshot && spec.follow)
        throw OptionError({OptionId::consistent_snapshot, " cannot be combined with ", OptionId::follow,
                           ": the snapshot holds no rows added during the run, which ", OptionId::follow,
                           " is there to read; choose one of the two"});
}

}  // namespace rowpump::config
