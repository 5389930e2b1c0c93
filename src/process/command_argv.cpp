#include "process/command_argv.hpp"

#include <algorithm>
#include <string_view>

namespace rowpump::process {

namespace {

// Characters that mean the same to /bin/sh as to a split on spaces. '=' is one of them only after the
// first word: `FOO=1 cmd` is an assignment.
bool plain_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_./:,+@%").find(c) != std::string_view::npos;
}

// The first words that only a shell runs: its special built-ins and keywords, and the built-ins that have no
// program of their name (`exit 7` started directly fails with "exit: No such file or directory").
bool shell_word(std::string_view word) {
    static constexpr std::string_view words[] = {
        "alias", "bg",     "break",  "case",   "cd",      "command", "continue", "do",     "done",  "elif", "else",
        "esac",  "eval",   "exec",   "exit",   "export",  "fc",      "fg",       "fi",     "for",   "function", "getopts",
        "hash",  "if",     "in",     "jobs",   "local",   "read",    "readonly", "return", "select", "set", "shift",
        "source", "then",  "times",  "trap",   "type",    "ulimit",  "umask",    "unalias", "unset", "until", "wait",
        "while", "{",      "}",      "!",      "."};
    return std::find(std::begin(words), std::end(words), word) != std::end(words);
}

bool plain(const std::string& command) {
    bool first_word = true;
    for (char c : command) {
        if (c == ' ') {
            first_word = false;
        } else if (!plain_character(c) && !(c == '=' && !first_word)) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::vector<std::string> command_argv(const std::string& command) {
    std::vector<std::string> words;
    if (plain(command)) {
        std::size_t start = 0;
        while (start < command.size()) {
            const std::size_t end = std::min(command.find(' ', start), command.size());
            if (end > start) words.emplace_back(command, start, end - start);
            start = end + 1;
        }
    }
    if (!words.empty() && shell_word(words.front())) words.clear();
    if (words.empty()) words = {"/bin/sh", "-c", command};
    return words;
}

}  // namespace rowpump::process
