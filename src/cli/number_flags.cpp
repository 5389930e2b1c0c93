#include "cli/number_flags.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace rowpump::cli {

namespace {

std::string number_text(double value) {
    char buffer[32];
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::string whole_bounds(std::uint64_t min, std::uint64_t max) {
    if (max == UINT64_MAX) return "of at least " + std::to_string(min);
    return "from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string real_bounds(double min, std::optional<double> max) {
    if (!max) return "of at least " + number_text(min);
    return "from " + number_text(min) + " to " + number_text(*max);
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

CLI::Validator real_number(double min, std::optional<double> max) {
    const std::string expected = "expected a number " + real_bounds(min, max);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
                value < min || (max && value > *max))
                return expected + ", got '" + text + "'";
            return {};
        },
        max ? "[" + number_text(min) + ".." + number_text(*max) + "]" : ">=" + number_text(min));
}

}  // namespace rowpump::cli
