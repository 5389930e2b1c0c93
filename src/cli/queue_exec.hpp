#pragma once
// Running a consumer's command for one task: /bin/sh -c CMD with the payload on stdin.
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump::cli {

struct CommandResult {
    bool succeeded = false;  // exit status 0
    std::string failure;     // otherwise: "exit status 3: <the end of its stderr>" or "killed by signal 9"
};

// Runs `command` through /bin/sh -c with `input` on its stdin and `environment` ("NAME=value") added to
// ours. Its stdout is ours; its stderr is copied to ours and the end of it kept for the failure text.
// It runs in its own process group, so a Ctrl-C meant for rowpump (a clean stop) does not kill the task
// half-way. `tick` is called about every `tick_interval` while it runs (renewing claims on long tasks).
// Needs SIGPIPE ignored in this process (a command that does not read its input must not kill us); the
// command itself starts with the default SIGPIPE. Throws Error when the command cannot be started.
CommandResult run_task_command(const std::string& command, std::string_view input, const std::vector<std::string>& environment,
                          std::chrono::milliseconds tick_interval, const std::function<void()>& tick);

}  // namespace rowpump::cli
