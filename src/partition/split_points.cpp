// Arithmetic split points over the whole 64-bit range. Every value is handled as its unsigned offset from
// `min`, which never overflows (max - min fits in 64 bits for both signednesses); the one product that can
// exceed 64 bits, i * width / parts, is done in 128 bits.
#include <algorithm>
#include <limits>

#include "partition/split_points.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"

namespace rowpump {

namespace {

__extension__ using uint128 = unsigned __int128;

// Offsets o_1 < ... < o_{p-1} in [1, width] that cut the width + 1 values of [0, width] into
// p = min(count, width + 1) parts whose sizes differ by at most one: o_i = floor(i * (width + 1) / p).
// Capping p at the number of values keeps every part non-empty, so the offsets are strictly increasing
// without a dedupe pass.
std::vector<std::uint64_t> split_offsets(std::uint64_t width, std::size_t count) {
    if (count == 0) throw UsageError("cannot split a key range into 0 partitions");
    const uint128 values = static_cast<uint128>(width) + 1;
    const uint128 parts = std::min<uint128>(count, values);
    std::vector<std::uint64_t> offsets;
    offsets.reserve(static_cast<std::size_t>(parts - 1));
    for (uint128 i = 1; i < parts; ++i) offsets.push_back(static_cast<std::uint64_t>(i * values / parts));
    return offsets;
}

void check_order(bool ordered) {
    if (!ordered) throw UsageError("cannot split a key range whose minimum is above its maximum");
}

}  // namespace

std::vector<std::uint64_t> split_points(std::uint64_t min, std::uint64_t max, std::size_t count) {
    check_order(min <= max);
    std::vector<std::uint64_t> points = split_offsets(max - min, count);
    for (auto& point : points) point += min;
    return points;
}

std::vector<std::int64_t> split_points(std::int64_t min, std::int64_t max, std::size_t count) {
    check_order(min <= max);
    // Two's complement: the unsigned difference of the bit patterns is the exact distance, and adding an
    // offset in unsigned arithmetic then converting back lands on the exact signed value.
    const auto base = static_cast<std::uint64_t>(min);
    std::vector<std::int64_t> points;
    for (std::uint64_t offset : split_offsets(static_cast<std::uint64_t>(max) - base, count))
        points.push_back(static_cast<std::int64_t>(base + offset));
    return points;
}

std::vector<KeyRange> ranges_between(const std::vector<KeyValue>& points) {
    std::vector<KeyRange> ranges;
    ranges.reserve(points.size() + 1);
    std::optional<KeyValue> lo;
    for (const auto& point : points) {
        ranges.push_back({lo, point});
        lo = point;
    }
    ranges.push_back({lo, std::nullopt});
    return ranges;
}

}  // namespace rowpump
