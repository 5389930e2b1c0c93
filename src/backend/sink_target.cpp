#include "backend/sink_target.hpp"

#include "rowpump/error.hpp"

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
