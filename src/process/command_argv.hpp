#pragma once
// How a consumer's command line is started. A plain command (`php handle.php --queue mail`) is split on
// spaces and started directly: a /bin/sh per task costs about as much again as the command itself. One
// with any shell syntax (quotes, $, pipes, redirections, globs, ~, a leading NAME=value, ...) or starting
// with a word only a shell runs (`exit 3`, `cd dir`, `.`, `if`) runs through /bin/sh -c exactly as written,
// so nothing a user writes changes meaning.
#include <string>
#include <vector>

namespace rowpump::process {

// ["/bin/sh", "-c", command] or the command's words; never empty.
std::vector<std::string> command_argv(const std::string& command);

}  // namespace rowpump::process
