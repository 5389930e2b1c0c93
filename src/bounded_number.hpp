#pragma once
// The one reader of a number a user gives, on the command line (cli/number_flags.hpp) or over HTTP
// (POST /rate, /max-lag), so that both accept the same text within the same bounds. std::stod alone
// takes "0x10" as 16, skips leading spaces, reads "-0" and "1e-300" as numbers >= 0, and lets NaN past
// every comparison.
#include <optional>
#include <string>
#include <string_view>

namespace rowpump {

struct NumberBounds {
    double min = 0;
    std::optional<double> max;  // none: no upper bound
    bool or_zero = false;  // 0 is allowed too (it means "none"), below min
};

// A plain decimal number: digits with an optional fraction and exponent; no sign, no hexadecimal, no
// spaces, nothing after it; finite and within `bounds`. nullopt otherwise.
std::optional<double> parse_bounded_number(std::string_view text, const NumberBounds& bounds);

// "a number from 0.001 to 315360000", "0 or a number from 1 to 1000000000", "a number of at least 0".
std::string describe(const NumberBounds& bounds);

// Seconds a user may give: up to ten years, so that milliseconds always fit.
constexpr double max_user_seconds = 10.0 * 365 * 86400;

// The bounds of the throttle's limits, for --rate and POST /rate, and for --max-lag and POST /max-lag.
// A rate below 1 row/s is no backfill; above 1e9 is no cap.
constexpr NumberBounds rate_bounds{1, 1e9, true};
constexpr NumberBounds max_lag_bounds{0.001, max_user_seconds, false};
// Seconds between progress lines (--progress-interval; 0: none). A run reports its progress once a second,
// so a line comes at most that often.
constexpr NumberBounds progress_interval_bounds{1, max_user_seconds, true};

}  // namespace rowpump
