#pragma once
// The arithmetic of planning: where to split a span of integers, and the ranges between split keys.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rowpump/key.hpp"

namespace rowpump {

// The arithmetic split points of [min, max] into `count` parts: strictly increasing, each in (min, max],
// at most count - 1 of them; overflow-safe over the whole 64-bit range.
// Throws UsageError for count 0 or min > max.
std::vector<std::int64_t> split_points(std::int64_t min, std::int64_t max, std::size_t count);
std::vector<std::uint64_t> split_points(std::uint64_t min, std::uint64_t max, std::size_t count);

// Ranges from increasing split points: k points give k + 1 ranges, (-inf, p1), [p1, p2), ..., [pk, +inf).
std::vector<KeyRange> ranges_between(const std::vector<KeyValue>& points);

}  // namespace rowpump
