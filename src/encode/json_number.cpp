#include "encode/json_number.hpp"

#include <algorithm>

namespace rowpump {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view take_digits(std::string_view text, std::size_t& i) {
    const std::size_t begin = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    return text.substr(begin, i - begin);
}

}  // namespace

std::optional<std::string_view> json_number(std::string_view text, std::string& scratch) {
    std::size_t i = 0;
    const bool minus = i < text.size() && text[i] == '-';
    const bool plus = i < text.size() && text[i] == '+';
    if (minus || plus) ++i;
    std::string_view integer = take_digits(text, i);
    const bool point = i < text.size() && text[i] == '.';
    if (point) ++i;
    const std::string_view fraction = take_digits(text, i);
    if (integer.empty() && fraction.empty()) return std::nullopt;
    std::string_view exponent;  // with its 'e' and sign
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        const std::size_t begin = i++;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (take_digits(text, i).empty()) return std::nullopt;
        exponent = text.substr(begin);
    }
    if (i != text.size()) return std::nullopt;

    const bool leading_zero = integer.size() > 1 && integer.front() == '0';
    if (!plus && !integer.empty() && !leading_zero && (!point || !fraction.empty())) return text;

    while (integer.size() > 1 && integer.front() == '0') integer.remove_prefix(1);
    scratch.clear();
    if (minus) scratch += '-';
    if (integer.empty()) scratch += '0';
    scratch += integer;
    if (!fraction.empty()) {
        scratch += '.';
        scratch += fraction;
    }
    scratch += exponent;
    return std::string_view(scratch);
}

bool is_safe_integer(std::string_view number) {
    constexpr std::string_view max_safe = "9007199254740991";
    if (number.starts_with('-')) number.remove_prefix(1);
    if (number.empty() || !std::all_of(number.begin(), number.end(), is_digit)) return false;
    return number.size() < max_safe.size() || (number.size() == max_safe.size() && number <= max_safe);
}

}  // namespace rowpump
