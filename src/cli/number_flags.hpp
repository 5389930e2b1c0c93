#pragma once
// Validators for numeric flags. CLI11 alone reads '-1' into a size_t as a huge number, a 20-digit
// number as the largest one, '010' as octal, and lets NaN through every comparison; its ranges print
// bounds like 1.79769e+308 in 300 digits. These accept plain decimal numbers within readable bounds and
// fail with one line that CLI11 prefixes with the flag: "--partitions: expected a whole number from 1
// to 1000000, got '-1'".
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>

#include "bounded_number.hpp"

namespace rowpump::cli {

// Decimal digits only, min <= value <= max. The text is rewritten in canonical form before CLI11
// converts it (no leading zeros, so nothing is read as octal).
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max = UINT64_MAX);

// A plain decimal number within bounds, as parse_bounded_number reads it (the HTTP endpoint reads its
// values with the same function and bounds).
CLI::Validator real_number(double min, std::optional<double> max = std::nullopt);
CLI::Validator real_number(const NumberBounds& bounds);

// Seconds a flag may give: up to ten years, so that milliseconds always fit.
constexpr double max_flag_seconds = max_user_seconds;

}  // namespace rowpump::cli
