#include "partition/temporal_axis.hpp"

#include <cstdio>

#include "civil_calendar.hpp"

namespace rowpump {

namespace {

constexpr std::int64_t micros_per_day = 86'400'000'000;

// "YYYY-MM-DD[ hh:mm:ss[.f...]]" as days (date_only) or microseconds since 1970; nullopt for anything
// else, zero dates included.
std::optional<std::int64_t> parse(const std::string& text, bool date_only) {
    unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    int used = 0;
    if (std::sscanf(text.c_str(), "%4u-%2u-%2u%n", &year, &month, &day, &used) != 3 || used != 10) return std::nullopt;
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
    const std::int64_t days = days_from_civil(year, month, day);
    if (date_only) return text.size() == 10 ? std::optional<std::int64_t>(days) : std::nullopt;
    std::int64_t micros = days * micros_per_day;
    if (text.size() == 10) return micros;
    int time_used = 0;
    if (std::sscanf(text.c_str() + 10, " %2u:%2u:%2u%n", &hour, &minute, &second, &time_used) != 3 || time_used != 9 ||
        hour > 23 || minute > 59 || second > 59)
        return std::nullopt;
    micros += ((hour * 60 + minute) * 60 + second) * std::int64_t{1'000'000};
    std::size_t at = 19;
    if (at < text.size()) {
        if (text[at] != '.') return std::nullopt;
        std::int64_t fraction = 0;
        int digits = 0;
        for (++at; at < text.size(); ++at, ++digits) {
            if (text[at] < '0' || text[at] > '9' || digits == 6) return std::nullopt;
            fraction = fraction * 10 + (text[at] - '0');
        }
        for (; digits < 6; ++digits) fraction *= 10;
        micros += fraction;
    }
    return micros;
}

}  // namespace

std::optional<TemporalAxis> TemporalAxis::between(const std::string& lo, const std::string& hi, bool date_only) {
    const auto start = parse(lo, date_only);
    const auto end = parse(hi, date_only);
    if (!start || !end || *end <= *start) return std::nullopt;
    TemporalAxis axis;
    axis.start_ = *start;
    axis.width_ = static_cast<std::uint64_t>(*end - *start);
    axis.date_only_ = date_only;
    return axis;
}

std::string TemporalAxis::at(std::uint64_t offset) const {
    const std::int64_t value = start_ + static_cast<std::int64_t>(offset < width_ ? offset : width_);
    const std::int64_t days = date_only_ ? value : (value >= 0 ? value / micros_per_day : -((-value + micros_per_day - 1) / micros_per_day));
    const CivilDate date = civil_from_days(days);
    const auto year = static_cast<int>(date.year);
    const unsigned month = date.month, day = date.day;
    char text[64];
    if (date_only_) {
        std::snprintf(text, sizeof text, "%04d-%02u-%02u", year, month, day);
    } else {
        const std::int64_t micros = value - days * micros_per_day;
        const auto seconds = static_cast<unsigned>(micros / 1'000'000);  // of the day: below 86,400
        std::snprintf(text, sizeof text, "%04d-%02u-%02u %02u:%02u:%02u.%06u", year, month, day, seconds / 3600,
                      seconds / 60 % 60, seconds % 60, static_cast<unsigned>(micros % 1'000'000));
    }
    return text;
}

}  // namespace rowpump
