#include "sink/sink_target.hpp"

#include "rowpump/error.hpp"
#include "sink/sinks.hpp"

namespace rowpump {

SinkSpec SinkSpec::redis(RedisOptions options, std::string queue) {
    SinkSpec spec;
    spec.uri = options.redacted();
    spec.queue = std::move(queue);
    spec.timeouts = options;
    spec.stop = options.stop;
    spec.redis_target = std::move(options);
    return spec;
}

SinkSpec SinkSpec::mysql(MySqlOptions options, std::string table) {
    SinkSpec spec;
    spec.uri = options.redacted();
    spec.queue = std::move(table);
    spec.timeouts = options;
    spec.mysql_target = std::move(options);
    return spec;
}

TargetKind sink_kind(const SinkSpec& spec) {
    if (spec.redis_target && spec.mysql_target)
        throw UsageError("the sink names both a Redis and a MySQL target: give one of them");
    if (spec.redis_target) return TargetKind::redis;
    if (spec.mysql_target) return TargetKind::mysql;
    return target_kind(spec.uri, TargetRole::sink);
}

SinkTarget sink_target(const SinkSpec& spec) {
    SinkTarget target;
    target.kind = sink_kind(spec);
    switch (target.kind) {
        case TargetKind::stdout_stream:
            break;
        case TargetKind::file:
            target.path = target_file_path(spec.uri);
            break;
        case TargetKind::redis:
            target.redis = sink_redis_options(spec);
            break;
        case TargetKind::mysql:
            target.mysql = sink_mysql_options(spec);
            break;
    }
    return target;
}

MySqlOptions sink_mysql_options(const SinkSpec& spec) {
    MySqlOptions options = spec.mysql_target ? *spec.mysql_target : MySqlOptions::from_url(spec.uri);
    static_cast<ServerTimeouts&>(options) = spec.timeouts;
    return options;
}

RedisOptions sink_redis_options(const SinkSpec& spec) {
    RedisOptions options = spec.redis_target ? *spec.redis_target : RedisOptions::from_url(spec.uri);
    static_cast<ServerTimeouts&>(options) = spec.timeouts;
    options.stop = spec.stop;
    return options;
}

}  // namespace rowpump
