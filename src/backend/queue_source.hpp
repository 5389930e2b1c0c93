#pragma once
// What every backend's consumer side reads of a QueueSource (rowpump/consumer.hpp) once the registry has
// typed it: its connection's timeouts and how it shows in a log line.
#include <string>
#include <variant>

#include "rowpump/consumer.hpp"

namespace rowpump {

// The typed connection's timeouts and retry budget, for a caller that overrides them (the queue commands'
// --read-timeout, ...). Throws UsageError when the source is not typed.
ServerTimeouts& connection_timeouts(QueueSource& source);
// The typed connection, password redacted ("redis://127.0.0.1:6379/0"); else the URL, redacted.
std::string redacted(const QueueSource& source);

// The source's connection as its backend's options (MySqlOptions, RedisOptions): as given when typed,
// else read from its URL.
template <class Options>
Options connection_options(const QueueSource& source) {
    if (const auto* typed = std::get_if<Options>(&source.connection)) return *typed;
    return Options::from_url(source.url);
}

}  // namespace rowpump
