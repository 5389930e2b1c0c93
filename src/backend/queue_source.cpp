#include "backend/queue_source.hpp"

#include <type_traits>
#include <utility>
#include <variant>

#include "rowpump/error.hpp"

namespace rowpump {

QueueSource QueueSource::from_url(std::string url, std::string queue) {
    QueueSource source;
    source.url = std::move(url);
    source.queue = std::move(queue);
    return source;
}

QueueSource QueueSource::mysql(MySqlOptions options, std::string table) {
    QueueSource source;
    source.url = options.redacted();
    source.queue = std::move(table);
    source.connection = std::move(options);
    return source;
}

QueueSource QueueSource::redis(RedisOptions options, std::string queue) {
    QueueSource source;
    source.url = options.redacted();
    source.queue = std::move(queue);
    source.connection = std::move(options);
    return source;
}

ServerTimeouts& connection_timeouts(QueueSource& source) {
    return std::visit(
        [&](auto& options) -> ServerTimeouts& {
            if constexpr (std::is_same_v<std::decay_t<decltype(options)>, std::monostate>)
                throw UsageError("the queue source " + redact_url(source.url) + " was not read yet");
            else
                return options;
        },
        source.connection);
}

std::string redacted(const QueueSource& source) {
    return std::visit(
        [&](const auto& options) -> std::string {
            if constexpr (std::is_same_v<std::decay_t<decltype(options)>, std::monostate>)
                return redact_url(source.url);
            else
                return options.redacted();
        },
        source.connection);
}

}  // namespace rowpump
