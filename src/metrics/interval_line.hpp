#pragma once
// The words of `queue consume`'s interval line (--log-interval, cli/consume_log.hpp), apart from its
// thread, so that they can be checked on known figures.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/interval_stats.hpp"

namespace rowpump::metrics {

// "queue mail: 12,480 tasks in the last 10.0 s (1,248/s): 12,400 ok, 60 failed (retried), 20 dead, 0 stale;
// latency p50 1.8 ms, p90 4.2 ms, p99 31 ms; 32 in flight". Empty when no task concluded and none is in
// flight: an idle consumer writes nothing.
std::string interval_line(std::string_view queue, const IntervalStats::Interval& interval, double seconds,
                          std::int64_t in_flight);

// "12,480"
std::string grouped(std::uint64_t number);
// "2.5 s": one decimal.
std::string seconds_text(double seconds);
// Two significant digits (three from 100 on) and a unit: "640 us", "1.8 ms", "31 ms", "2.5 s".
std::string short_duration(std::chrono::nanoseconds duration);

}  // namespace rowpump::metrics
