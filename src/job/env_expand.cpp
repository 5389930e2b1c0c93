#include "job/env_expand.hpp"

#include <cctype>
#include <cstdlib>

namespace rowpump::job {

namespace {

bool valid_name(std::string_view name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

}  // namespace

std::string expand_env(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    while (at < text.size()) {
        if (text.compare(at, 3, "$${") == 0) {
            out += "${";
            at += 3;
            continue;
        }
        if (text.compare(at, 2, "${") != 0) {
            out += text[at++];
            continue;
        }
        const auto close = text.find('}', at + 2);
        const std::string_view name =
            close == std::string_view::npos ? std::string_view{} : text.substr(at + 2, close - at - 2);
        if (!valid_name(name))
            throw UsageError("bad variable reference '" + std::string(text.substr(at, close == std::string_view::npos ? 2 : close - at + 1)) +
                             "': expected ${NAME} (letters, digits and _), or $${ for a literal ${");
        const char* value = std::getenv(std::string(name).c_str());
        if (!value) throw UnsetVariable(std::string(name));
        out += value;
        at = close + 1;
    }
    return out;
}

}  // namespace rowpump::job
