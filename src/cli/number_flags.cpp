#include "cli/number_flags.hpp"

#include <charconv>
#include <cstdio>
#include <string>

namespace rowpump::cli {

namespace {

std::string number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.15g", value);
    return buffer;
}

std::string whole_bounds(std::uint64_t min, std::uint64_t max) {
    if (max == UINT64_MAX) return "of at least " + std::to_string(min);
    return "from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
    const std::string expected = "expected a whole number " + whole_bounds(min, max);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            std::uint64_t value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < min || value > max)
                return expected + ", got '" + text + "'";
            text = std::to_string(value);
            return {};
        },
        max == UINT64_MAX ? ">=" + std::to_string(min) : "[" + std::to_string(min) + ".." + std::to_string(max) + "]");
}

CLI::Validator real_number(double min, std::optional<double> max) { return real_number(NumberBounds{min, max}); }

CLI::Validator real_number(const NumberBounds& bounds) {
    const std::string expected = "expected " + describe(bounds);
    const std::string range = bounds.max ? "[" + number_text(bounds.min) + ".." + number_text(*bounds.max) + "]"
                                         : ">=" + number_text(bounds.min);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            if (!parse_bounded_number(text, bounds)) return expected + ", got '" + text + "'";
            return {};
        },
        bounds.or_zero ? "0 or " + range : range);
}

}  // namespace rowpump::cli
