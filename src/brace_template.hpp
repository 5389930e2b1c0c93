#pragma once
// The one syntax of rowpump's templates (payload templates, Redis key names): literal text with
// placeholders in braces, "{{" and "}}" for literal braces. Positions are 1-based character offsets into
// the template, so an error can point at the place to fix.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump {

struct BracePart {
    bool placeholder = false;
    std::string text;           // the literal text (braces unescaped), or the placeholder's name
    std::size_t position = 0;   // where the part starts: its '{' for a placeholder
};

// Splits `text` into literal runs and placeholders. Throws UsageError "<what> '<text>': <problem> at
// position N: <fix>" for an unclosed '{', a lone '}', a '{' inside a placeholder or an empty one.
std::vector<BracePart> split_braces(std::string_view text, std::string_view what);

// "<what> '<text>': <problem> at position N: <fix>", the shape of every template error.
std::string template_error(std::string_view what, std::string_view text, std::string_view problem,
                           std::size_t position, std::string_view fix);

}  // namespace rowpump
