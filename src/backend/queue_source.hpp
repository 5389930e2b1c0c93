#pragma once
// What every backend's consumer side reads of a QueueSource (rowpump/consumer.hpp) once the registry has
// typed it: its connection's timeouts and how it shows in a log line.
#include <string>

#include "rowpump/consumer.hpp"

namespace rowpump {

// The typed connection's timeouts and retry budget, for a caller that overrides them (the queue commands'
// --read-timeout, ...). Throws UsageError when the source is not typed.
ServerTimeouts& connection_timeouts(QueueSource& source);
// The typed connection, password redacted ("redis://127.0.0.1:6379/0"); else the URL, redacted.
std::string redacted(const QueueSource& source);

}  // namespace rowpump
