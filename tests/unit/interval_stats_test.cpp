// The figures of `queue consume`'s interval line (metrics/interval_stats.hpp, metrics/interval_line.hpp):
// percentiles of known latencies, a fresh start each interval, the rate and the words of the line.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "metrics/interval_line.hpp"
#include "metrics/interval_stats.hpp"

namespace rowpump::metrics {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

// Within the 1/8 a bucket spans.
void expect_near(nanoseconds seen, nanoseconds wanted) {
    EXPECT_NEAR(static_cast<double>(seen.count()), static_cast<double>(wanted.count()),
                static_cast<double>(wanted.count()) / 8)
        << "seen " << seen.count() << " ns, wanted " << wanted.count() << " ns";
}

TEST(IntervalStatsTest, PercentilesOfKnownLatencies) {
    IntervalStats stats;
    for (int ms = 1; ms <= 100; ++ms) stats.record(TaskOutcome::done, std::chrono::milliseconds(ms));
    const IntervalStats::Interval interval = stats.take();
    EXPECT_EQ(interval.tasks(), 100u);
    EXPECT_EQ(interval.timed, 100u);
    expect_near(interval.percentile(0.5), 50ms);
    expect_near(interval.percentile(0.9), 90ms);
    expect_near(interval.percentile(0.99), 99ms);
    expect_near(interval.percentile(1), 100ms);
}

TEST(IntervalStatsTest, OneSlowTaskInAHundredIsTheP99Alone) {
    IntervalStats stats;
    for (int i = 0; i < 99; ++i) stats.record(TaskOutcome::done, 2ms);
    stats.record(TaskOutcome::done, 3s);
    const IntervalStats::Interval interval = stats.take();
    expect_near(interval.percentile(0.5), 2ms);
    expect_near(interval.percentile(0.99), 2ms);
    expect_near(interval.percentile(1), 3s);
}

TEST(IntervalStatsTest, BucketsCoverTheirRangeWithoutGaps) {
    for (std::size_t i = 0; i + 1 < IntervalStats::bucket_count; ++i) {
        EXPECT_EQ(IntervalStats::upper(i), IntervalStats::lower(i + 1)) << i;
        EXPECT_EQ(IntervalStats::bucket_of(IntervalStats::lower(i + 1)), i + 1) << i;
        EXPECT_EQ(IntervalStats::bucket_of(IntervalStats::lower(i + 1) - 1ns), i) << i;
    }
    EXPECT_EQ(IntervalStats::bucket_of(-5ns), 0u);
    EXPECT_EQ(IntervalStats::bucket_of(std::chrono::hours(24 * 365)), IntervalStats::bucket_count - 1);
}

TEST(IntervalStatsTest, EachIntervalStartsFromZero) {
    IntervalStats stats;
    stats.record(TaskOutcome::done, 1ms);
    stats.record(TaskOutcome::retried, 1ms);
    stats.record(TaskOutcome::dead, 1ms);
    stats.record(TaskOutcome::stale, nanoseconds(-1));  // counted, not timed
    const IntervalStats::Interval first = stats.take();
    EXPECT_EQ(first.tasks(), 4u);
    EXPECT_EQ(first.timed, 3u);
    EXPECT_EQ(first.count(TaskOutcome::stale), 1u);

    const IntervalStats::Interval empty = stats.take();
    EXPECT_EQ(empty.tasks(), 0u);
    EXPECT_EQ(empty.timed, 0u);
    EXPECT_EQ(empty.percentile(0.5), 0ns);

    stats.record(TaskOutcome::done, 40ms);
    const IntervalStats::Interval next = stats.take();
    EXPECT_EQ(next.tasks(), 1u);
    EXPECT_EQ(next.count(TaskOutcome::retried), 0u);
    expect_near(next.percentile(0.5), 40ms);  // not pulled down by the 1 ms of the interval before
}

TEST(IntervalLineTest, CountsRateAndPercentiles) {
    IntervalStats stats;
    for (int i = 0; i < 12'400; ++i) stats.record(TaskOutcome::done, 2ms);
    for (int i = 0; i < 60; ++i) stats.record(TaskOutcome::retried, 2ms);
    for (int i = 0; i < 20; ++i) stats.record(TaskOutcome::dead, 2ms);
    const std::string line = interval_line("mail", stats.take(), 10, 32);
    EXPECT_EQ(line.substr(0, line.find("; latency")),
              "queue mail: 12,480 tasks in the last 10.0 s (1,248/s): 12,400 ok, 60 failed (retried), 20 dead, 0 stale");
    EXPECT_NE(line.find("; latency p50 2.0 ms, p90 2.1 ms, p99 2.1 ms; 32 in flight"), std::string::npos) << line;
}

TEST(IntervalLineTest, RateOfAShortInterval) {
    IntervalStats stats;
    for (int i = 0; i < 3; ++i) stats.record(TaskOutcome::done, 1ms);
    EXPECT_NE(interval_line("q", stats.take(), 0.5, 0).find("3 tasks in the last 0.5 s (6.0/s)"), std::string::npos);
}

TEST(IntervalLineTest, IdleWritesNothingButWorkInFlightIsShown) {
    IntervalStats stats;
    EXPECT_EQ(interval_line("q", stats.take(), 10, 0), "");
    EXPECT_EQ(interval_line("q", stats.take(), 10, 2), "queue q: no task finished in the last 10.0 s; 2 in flight");
}

TEST(IntervalLineTest, NumbersAndDurations) {
    EXPECT_EQ(grouped(0), "0");
    EXPECT_EQ(grouped(999), "999");
    EXPECT_EQ(grouped(1000), "1,000");
    EXPECT_EQ(grouped(1234567), "1,234,567");
    EXPECT_EQ(short_duration(640us), "640 us");
    EXPECT_EQ(short_duration(1800us), "1.8 ms");
    EXPECT_EQ(short_duration(31ms), "31 ms");
    EXPECT_EQ(short_duration(2500ms), "2.5 s");
}

}  // namespace
}  // namespace rowpump::metrics
