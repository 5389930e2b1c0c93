#include "metrics/interval_line.hpp"

#include <cstdio>

namespace rowpump::metrics {

namespace {

std::string rate_text(double per_second) {
    if (per_second >= 10) return grouped(static_cast<std::uint64_t>(per_second + 0.5));
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", per_second);
    return text;
}

}  // namespace

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", seconds);
    return text;
}

std::string grouped(std::uint64_t number) {
    const std::string digits = std::to_string(number);
    std::string text;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

std::string short_duration(std::chrono::nanoseconds duration) {
    double value = static_cast<double>(duration.count());
    const char* unit = "ns";
    if (value >= 1e9)
        unit = "s", value /= 1e9;
    else if (value >= 1e6)
        unit = "ms", value /= 1e6;
    else if (value >= 1e3)
        unit = "us", value /= 1e3;
    char text[32];
    std::snprintf(text, sizeof text, value < 9.95 ? "%.1f %s" : "%.0f %s", value, unit);
    return text;
}

std::string interval_line(std::string_view queue, const IntervalStats::Interval& interval, double seconds,
                          std::int64_t in_flight) {
    const std::uint64_t tasks = interval.tasks();
    const std::string flight = "; " + std::to_string(in_flight) + " in flight";
    const std::string head = "queue " + std::string(queue) + ": ";
    if (tasks == 0)
        return in_flight > 0 ? head + "no task finished in the last " + seconds_text(seconds) + flight : std::string();
    std::string line = head + grouped(tasks) + " tasks in the last " + seconds_text(seconds) + " (" +
                       rate_text(static_cast<double>(tasks) / seconds) + "/s): " +
                       grouped(interval.count(TaskOutcome::done)) + " ok, " +
                       grouped(interval.count(TaskOutcome::retried)) + " failed (retried), " +
                       grouped(interval.count(TaskOutcome::dead)) + " dead, " +
                       grouped(interval.count(TaskOutcome::stale)) + " stale";
    if (interval.timed > 0)
        line += "; latency p50 " + short_duration(interval.percentile(0.5)) + ", p90 " +
                short_duration(interval.percentile(0.9)) + ", p99 " + short_duration(interval.percentile(0.99));
    return line + flight;
}

}  // namespace rowpump::metrics
