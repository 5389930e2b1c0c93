#include "bounded_number.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace rowpump {

namespace {

std::string number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", value);
    return buffer;
}

}  // namespace

std::optional<double> parse_bounded_number(std::string_view text, const NumberBounds& bounds) {
    // from_chars takes no '+' and no "0x", but a '-' (and with it "-0") and "inf"/"nan": a digit or a
    // point must come first.
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.'))
        return std::nullopt;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    if (bounds.or_zero && value == 0) return value;
    if (value < bounds.min || (bounds.max && value > *bounds.max)) return std::nullopt;
    return value;
}

std::string describe(const NumberBounds& bounds) {
    const std::string range = bounds.max ? "from " + number_text(bounds.min) + " to " + number_text(*bounds.max)
                                         : "of at least " + number_text(bounds.min);
    return (bounds.or_zero ? "0 or a number " : "a number ") + range;
}

}  // namespace rowpump
