#include "metrics/interval_stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rowpump::metrics {

namespace {

using std::chrono::nanoseconds;

constexpr std::size_t last_bucket = IntervalStats::bucket_count - 1;

}  // namespace

std::size_t IntervalStats::bucket_of(nanoseconds latency) {
    const auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(latency.count(), 0));
    if (ns < (std::uint64_t{1} << first_doubling)) return 0;
    const int doubling = static_cast<int>(std::bit_width(ns)) - 1;
    if (doubling >= last_doubling) return last_bucket;
    // The 3 bits under the leading one: where in its doubling the latency lies.
    const auto step = (ns >> (doubling - 3)) & (per_doubling - 1);
    return 1 + static_cast<std::size_t>(doubling - first_doubling) * per_doubling + step;
}

nanoseconds IntervalStats::lower(std::size_t index) {
    if (index == 0) return nanoseconds(0);
    if (index >= last_bucket) return nanoseconds(std::int64_t{1} << last_doubling);
    const std::size_t doubling = first_doubling + (index - 1) / per_doubling;
    const std::size_t step = (index - 1) % per_doubling;
    return nanoseconds(static_cast<std::int64_t>((per_doubling + step) << (doubling - 3)));
}

nanoseconds IntervalStats::upper(std::size_t index) {
    // The last bucket is open: its latencies are shown as its lower bound's double.
    if (index >= last_bucket) return nanoseconds(std::int64_t{1} << (last_doubling + 1));
    return lower(index + 1);
}

void IntervalStats::record(TaskOutcome outcome, nanoseconds latency) {
    outcomes_[static_cast<std::size_t>(outcome)].fetch_add(1, std::memory_order_relaxed);
    if (latency.count() >= 0) buckets_[bucket_of(latency)].fetch_add(1, std::memory_order_relaxed);
}

IntervalStats::Interval IntervalStats::take() {
    Interval interval;
    for (std::size_t i = 0; i < outcomes_.size(); ++i)
        interval.outcomes[i] = outcomes_[i].exchange(0, std::memory_order_relaxed);
    for (std::size_t i = 0; i < bucket_count; ++i) {
        interval.buckets[i] = buckets_[i].exchange(0, std::memory_order_relaxed);
        interval.timed += interval.buckets[i];
    }
    return interval;
}

std::uint64_t IntervalStats::Interval::tasks() const {
    std::uint64_t total = 0;
    for (const std::uint64_t count : outcomes) total += count;
    return total;
}

nanoseconds IntervalStats::Interval::percentile(double p) const {
    if (timed == 0) return nanoseconds(0);
    // The rank of the task wanted (1-based), then where it lies in its bucket: the bucket's latencies are
    // taken as spread evenly over it.
    const auto rank = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(p * static_cast<double>(timed))),
                                                1, timed);
    std::uint64_t below = 0;
    for (std::size_t i = 0; i < bucket_count; ++i) {
        if (below + buckets[i] < rank) {
            below += buckets[i];
            continue;
        }
        const double share = (static_cast<double>(rank - below) - 0.5) / static_cast<double>(buckets[i]);
        const auto from = static_cast<double>(lower(i).count()), to = static_cast<double>(upper(i).count());
        return nanoseconds(static_cast<std::int64_t>(from + share * (to - from)));
    }
    return upper(last_bucket);
}

}  // namespace rowpump::metrics
