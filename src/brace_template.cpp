#include "brace_template.hpp"

#include "rowpump/error.hpp"

namespace rowpump {

namespace {

constexpr std::string_view brace_fix = "write {{ or }} for a literal brace";

}  // namespace

std::string template_error(std::string_view what, std::string_view text, std::string_view problem,
                           std::size_t position, std::string_view fix) {
    return std::string(what) + " '" + std::string(text) + "': " + std::string(problem) + " at position " +
           std::to_string(position) + ": " + std::string(fix);
}

std::vector<BracePart> split_braces(std::string_view text, std::string_view what) {
    std::vector<BracePart> parts;
    const auto literal = [&](std::size_t at) -> std::string& {
        if (parts.empty() || parts.back().placeholder) parts.push_back({false, {}, at + 1});
        return parts.back().text;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool doubled = i + 1 < text.size() && text[i + 1] == c;
        if ((c == '{' || c == '}') && doubled) {
            literal(i) += c;
            ++i;
        } else if (c == '}') {
            throw UsageError(template_error(what, text, "a lone '}'", i + 1, brace_fix));
        } else if (c == '{') {
            const std::size_t close = text.find_first_of("{}", i + 1);
            if (close == std::string_view::npos || text[close] == '{')
                throw UsageError(template_error(what, text, "'{' without its '}'", i + 1,
                                                std::string("close the placeholder, or ") + std::string(brace_fix)));
            if (close == i + 1) throw UsageError(template_error(what, text, "an empty placeholder {}", i + 1, "name what to insert"));
            parts.push_back({true, std::string(text.substr(i + 1, close - i - 1)), i + 1});
            i = close;
        } else {
            literal(i) += c;
        }
    }
    return parts;
}

}  // namespace rowpump
