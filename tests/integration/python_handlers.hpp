// The Python programs the tests start, run by Debian's python3 (scripts/setup.sh installs it) rather than
// the first python3 on PATH: a version manager's shim there (pyenv's) costs half a second of CPU a start,
// against 0.05 s, and the handler tests start dozens (a crashing handler is started again each time).
#pragma once

#include <string>

namespace rowpump::test {

inline constexpr const char* system_python = "/usr/bin/python3";

// `system_python` and a file of the source tree, as a --pipe command line.
inline std::string python_command(const std::string& relative) {
    return std::string(system_python) + " " + ROWPUMP_SOURCE_DIR + "/" + relative;
}

// tests/consumers/recording_handler.py: records every task it answers (RECORD), misbehaves on request.
inline std::string recording_handler_command() { return python_command("tests/consumers/recording_handler.py"); }

}  // namespace rowpump::test
