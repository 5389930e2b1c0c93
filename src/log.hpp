#pragma once
// rowpump's logger: spdlog formats each message, and the handler of set_log_handler (rowpump/log.hpp)
// receives it; nothing is written when no handler is set. Not registered with spdlog, so an embedding
// program's own spdlog setup neither sees nor changes it. Messages never carry passwords: every URL goes
// through redact_url() or the options' redacted() first.
#include <spdlog/spdlog.h>

#include "rowpump/log.hpp"

namespace rowpump {

spdlog::logger& log();

}  // namespace rowpump
