#pragma once
// Where rowpump's messages go. The library never writes to stderr on its own: until a program installs a
// handler, every message is dropped. The rowpump CLI installs one that prints "rowpump: LEVEL: message"
// on stderr. Messages never carry passwords: every URL in them is redacted first.
#include <functional>
#include <string_view>

#include "rowpump/export.hpp"

namespace ROWPUMP_EXPORT rowpump {

enum class LogLevel { debug, info, warning, error, off };
// "debug", "info", "warning", "error", "off".
std::string_view to_string(LogLevel level);

// Called with each message at or above the level, from whichever thread logs it (workers log too); calls
// never overlap. An empty handler drops every message (the default).
using LogHandler = std::function<void(LogLevel, std::string_view message)>;
void set_log_handler(LogHandler handler);

// The least severe level passed on; info by default. off passes nothing.
void set_log_level(LogLevel level);
LogLevel log_level();

}  // namespace rowpump
