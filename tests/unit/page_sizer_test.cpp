// PageSizer: the next page's size after a page took so long, within its bounds, at most doubling or
// halving at once; a fixed size when no target time is set.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "paging/page_size.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;

ReadSpec adaptive_spec(std::size_t page_size, std::chrono::milliseconds target = 200ms) {
    ReadSpec spec;
    spec.page_size = page_size;
    spec.min_page_size = 100;
    spec.max_page_size = 5000;
    spec.target_page_time = target;
    return spec;
}

// The size after each of `elapsed` full pages, starting from `page_size`.
std::vector<std::size_t> sizes_after(std::size_t page_size, const std::vector<std::chrono::microseconds>& elapsed) {
    PageSizer sizer(adaptive_spec(page_size));
    std::vector<std::size_t> sizes;
    for (const auto page_time : elapsed) {
        sizer.observe(sizer.size(), page_time);
        sizes.push_back(sizer.size());
    }
    return sizes;
}

TEST(PageSizerTest, AFixedSizeStaysWhateverItsBoundsAndPagesSay) {
    ReadSpec spec = adaptive_spec(50'000, 0ms);
    PageSizer sizer(spec);
    EXPECT_EQ(sizer.size(), 50'000u) << "a fixed size is not clamped to the adaptive bounds";
    sizer.observe(50'000, 10s);
    sizer.observe(50'000, 0s);
    EXPECT_EQ(sizer.size(), 50'000u);
}

TEST(PageSizerTest, TheFirstSizeIsClampedToTheBounds) {
    EXPECT_EQ(PageSizer(adaptive_spec(10)).size(), 100u);
    EXPECT_EQ(PageSizer(adaptive_spec(100)).size(), 100u);
    EXPECT_EQ(PageSizer(adaptive_spec(5000)).size(), 5000u);
    EXPECT_EQ(PageSizer(adaptive_spec(SIZE_MAX)).size(), 5000u);
    EXPECT_EQ(PageSizer(adaptive_spec(0)).size(), 100u);
}

TEST(PageSizerTest, MovesTowardTheTargetByTheRatioOfTimes) {
    EXPECT_EQ(sizes_after(1000, {200ms}), (std::vector<std::size_t>{1000})) << "on target";
    EXPECT_EQ(sizes_after(1000, {250ms}), (std::vector<std::size_t>{800}));
    EXPECT_EQ(sizes_after(1000, {160ms}), (std::vector<std::size_t>{1250}));
}

TEST(PageSizerTest, AtMostDoublesOrHalvesAtOnce) {
    EXPECT_EQ(sizes_after(1000, {1ms, 1ms}), (std::vector<std::size_t>{2000, 4000}));
    EXPECT_EQ(sizes_after(1000, {0ms}), (std::vector<std::size_t>{2000})) << "a page that took no time";
    EXPECT_EQ(sizes_after(4000, {10s, 10s}), (std::vector<std::size_t>{2000, 1000}));
}

TEST(PageSizerTest, StaysWithinItsBounds) {
    EXPECT_EQ(sizes_after(3000, {1ms, 1ms}), (std::vector<std::size_t>{5000, 5000}));
    EXPECT_EQ(sizes_after(150, {10s, 10s}), (std::vector<std::size_t>{100, 100}));
}

TEST(PageSizerTest, AShortPageSaysNothingAboutTheNextOne) {
    PageSizer sizer(adaptive_spec(1000));
    sizer.observe(999, 10s);  // the range's last page: fewer rows than asked for
    EXPECT_EQ(sizer.size(), 1000u);
    sizer.observe(0, 1ms);
    EXPECT_EQ(sizer.size(), 1000u);
    sizer.observe(1000, 10s);
    EXPECT_EQ(sizer.size(), 500u);
}

}  // namespace
}  // namespace rowpump
