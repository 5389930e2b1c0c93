// split_points and ranges_between: every value of [min, max] lies in exactly one range, for many part
// counts and ranges, up to the whole signed and unsigned 64-bit range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "partition/split_points.hpp"
#include "rowpump/error.hpp"
#include "rowpump/partition.hpp"

namespace rowpump {
namespace {

const std::vector<std::size_t> part_counts{1, 2, 3, 7, 16, 99, 1000};

constexpr std::int64_t int_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int_max = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t uint_max = std::numeric_limits<std::uint64_t>::max();

// The number of ranges (-inf, p1), [p1, p2), ..., [pk, +inf) that hold `value`.
template <class Integer>
int ranges_holding(const std::vector<Integer>& points, Integer value) {
    int holding = 0;
    for (std::size_t i = 0; i <= points.size(); ++i)
        if ((i == 0 || value >= points[i - 1]) && (i == points.size() || value < points[i])) ++holding;
    return holding;
}

// The distance from a to b (a <= b) as an unsigned offset: exact for both signednesses.
template <class Integer>
std::uint64_t distance(Integer a, Integer b) {
    return static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
}

// What holds for any [min, max]: strictly increasing points in (min, max], exactly min(count, values) - 1
// of them, range sizes differing by at most one and adding up to the width of [min, max].
template <class Integer>
void check_split(Integer min, Integer max, std::size_t count) {
    SCOPED_TRACE(testing::Message() << "[" << min << ", " << max << "] into " << count);
    const auto points = split_points(min, max, count);
    const std::uint64_t width = distance(min, max);  // values - 1, so no overflow at 2^64 values
    const std::uint64_t expected_points = width < count - 1 ? width : count - 1;
    ASSERT_EQ(points.size(), expected_points);

    std::vector<std::uint64_t> sizes;
    Integer start = min;
    for (Integer point : points) {
        ASSERT_GT(point, start);
        ASSERT_LE(point, max);
        sizes.push_back(distance(start, point));
        start = point;
    }
    // Wraps to 0 only when one range holds all 2^64 values; width + 1 below wraps the same way.
    sizes.push_back(distance(start, max) + 1);
    std::uint64_t total = 0;
    for (auto size : sizes) total += size;  // modulo 2^64, like width + 1
    EXPECT_EQ(total, width + 1);
    const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
    EXPECT_LE(*largest - *smallest, 1u);
}

// Small widths: enumerate every value.
template <class Integer>
void check_every_value(Integer min, Integer max, std::size_t count) {
    check_split(min, max, count);
    const auto points = split_points(min, max, count);
    for (Integer value = min;; ++value) {
        ASSERT_EQ(ranges_holding(points, value), 1) << value << " in [" << min << ", " << max << "] into " << count;
        if (value == max) break;
    }
}

// Huge widths: every boundary's neighbours, the ends and random values.
template <class Integer>
void check_sampled_values(Integer min, Integer max, std::size_t count) {
    check_split(min, max, count);
    const auto points = split_points(min, max, count);
    std::vector<Integer> values{min, max};
    for (Integer point : points) {
        values.insert(values.end(), {static_cast<Integer>(point - 1), point});
        if (point < max) values.push_back(static_cast<Integer>(point + 1));
    }
    std::mt19937_64 random(count);
    std::uniform_int_distribution<Integer> any(min, max);
    for (int i = 0; i < 200; ++i) values.push_back(any(random));
    for (Integer value : values)
        ASSERT_EQ(ranges_holding(points, value), 1) << value;
}

TEST(SplitPoints, SmallSignedRangesCoverEveryValueOnce) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> ranges{
        {0, 0}, {5, 6}, {-3, -1}, {-10, 10}, {1, 100}, {-2000, -1}, {-1500, 1499},
        {int_min, int_min + 20}, {int_max - 20, int_max}, {int_min, int_min}, {int_max, int_max}};
    for (auto [min, max] : ranges)
        for (auto count : part_counts) check_every_value(min, max, count);
}

TEST(SplitPoints, SmallUnsignedRangesCoverEveryValueOnce) {
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges{
        {0, 0}, {0, 1}, {0, 30}, {7, 1006}, {uint_max - 30, uint_max}, {uint_max, uint_max}};
    for (auto [min, max] : ranges)
        for (auto count : part_counts) check_every_value(min, max, count);
}

TEST(SplitPoints, WholeAndHalf64BitRangesDoNotOverflow) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> signed_ranges{
        {int_min, int_max}, {int_min, 0}, {-1, int_max}, {int_min + 1, int_max - 1}, {int_min, -1}};
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> unsigned_ranges{
        {0, uint_max}, {1, uint_max}, {0, uint_max - 1}, {std::uint64_t{1} << 63, uint_max}};
    for (auto count : part_counts) {
        for (auto [min, max] : signed_ranges) check_sampled_values(min, max, count);
        for (auto [min, max] : unsigned_ranges) check_sampled_values(min, max, count);
    }
}

TEST(SplitPoints, HalvesAndQuartersOfTheWholeRangeAreExact) {
    EXPECT_EQ(split_points(int_min, int_max, 2), (std::vector<std::int64_t>{0}));
    EXPECT_EQ(split_points(int_min, int_max, 4),
              (std::vector<std::int64_t>{-(std::int64_t{1} << 62), 0, std::int64_t{1} << 62}));
    EXPECT_EQ(split_points(std::uint64_t{0}, uint_max, 2), (std::vector<std::uint64_t>{std::uint64_t{1} << 63}));
    EXPECT_EQ(split_points(std::int64_t{1}, std::int64_t{10}, 3), (std::vector<std::int64_t>{4, 7}));
}

TEST(SplitPoints, MorePartsThanValuesGivesOneValuePerRange) {
    EXPECT_EQ(split_points(std::int64_t{-2}, std::int64_t{1}, 16), (std::vector<std::int64_t>{-1, 0, 1}));
    EXPECT_TRUE(split_points(std::uint64_t{9}, std::uint64_t{9}, 1000).empty());
}

TEST(SplitPoints, ZeroPartsOrAnInvertedRangeIsAUsageError) {
    EXPECT_THROW(split_points(std::int64_t{0}, std::int64_t{10}, 0), UsageError);
    EXPECT_THROW(split_points(std::uint64_t{0}, uint_max, 0), UsageError);
    EXPECT_THROW(split_points(std::int64_t{1}, std::int64_t{0}, 3), UsageError);
    EXPECT_THROW(split_points(std::uint64_t{1}, std::uint64_t{0}, 3), UsageError);
}

TEST(RangesBetween, NoPointsIsOneOpenRange) {
    const auto ranges = ranges_between({});
    ASSERT_EQ(ranges.size(), 1u);
    EXPECT_FALSE(ranges[0].lo);
    EXPECT_FALSE(ranges[0].hi);
}

TEST(RangesBetween, PointsChainHalfOpenRangesOpenAtBothEnds) {
    const std::vector<KeyValue> points{{std::int64_t{10}}, {std::int64_t{20}}, {std::int64_t{30}}};
    const auto ranges = ranges_between(points);
    ASSERT_EQ(ranges.size(), 4u);
    EXPECT_FALSE(ranges.front().lo);
    EXPECT_FALSE(ranges.back().hi);
    for (std::size_t i = 0; i + 1 < ranges.size(); ++i) {
        ASSERT_TRUE(ranges[i].hi);
        ASSERT_TRUE(ranges[i + 1].lo);
        EXPECT_EQ(*ranges[i].hi, points[i]);
        EXPECT_EQ(*ranges[i + 1].lo, points[i]);  // each range starts exactly where the previous one stops
    }
}

TEST(PartitionStrategy, NamesRoundTripAndUnknownNamesAreUsageErrors) {
    for (auto strategy : {PartitionStrategy::minmax, PartitionStrategy::balanced})
        EXPECT_EQ(parse_partition_strategy(to_string(strategy)), strategy);
    EXPECT_THROW(parse_partition_strategy("even"), UsageError);
}

}  // namespace
}  // namespace rowpump
