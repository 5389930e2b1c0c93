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
    if (words.empty()) words = {"/bin/sh", "-c", command};
    return words;
}

}  // namespace rowpump::process
