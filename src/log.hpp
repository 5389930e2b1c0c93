#pragma once
// rowpump's logger: spdlog, to stderr, shared by the library and the CLI. Messages never carry
// passwords: every URL goes through redact_url() or the options' redacted() first.
#include <spdlog/spdlog.h>

namespace rowpump {

spdlog::logger& log();

}  // namespace rowpump
