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

namespace {

// A source typed by its connection options (MySqlOptions or RedisOptions); its URL is theirs, redacted.
template <class Options>
QueueSource typed_source(Options options, std::string queue) {
    QueueSource source = QueueSource::from_url(options.redacted(), std::move(queue));
    source.connection = std::move(options);
    return source;
}

}  // namespace

QueueSource QueueSource::mysql(MySqlOptions options, std::string table) {
    return typed_source(std::move(options), std::move(table));
}

QueueSource QueueSource::redis(RedisOptions options, std::string queue) {
    return typed_source(std::move(options), std::move(queue));
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
