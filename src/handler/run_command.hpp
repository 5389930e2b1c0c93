#pragma once
// Running a consumer's command once, to its end, with some input on its stdin: --exec runs it per task,
// --exec-batch per batch of tasks.
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump::handler {

struct CommandResult {
    bool succeeded = false;  // exit status 0
    std::string failure;     // otherwise: "exit status 3: <the end of its stderr>" or "killed by signal 9"
};

// Runs `command` (process/command_argv.hpp) with `input` on its stdin and `environment` ("NAME=value")
// added to ours. Its stdout is ours; its stderr is copied to ours and the end of it kept for the failure
// text. `tick` is called about every `tick_interval` while it runs (renewing claims on long tasks).
// Throws Error when the command cannot be started.
CommandResult run_command(const std::string& command, std::string_view input, const std::vector<std::string>& environment,
                          std::chrono::milliseconds tick_interval, const std::function<void()>& tick);

}  // namespace rowpump::handler
