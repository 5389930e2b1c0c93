#pragma once
// One interval of a consumer's work, for the line `queue consume` logs every --log-interval: tasks by
// outcome and their latencies. Recording is a few relaxed atomic increments (no lock, no allocation), as
// a consumer runs 100k tasks/s and more; take() returns the interval's figures and starts the next one.
// Latencies go into fixed log-spaced buckets, 8 to a doubling, from 1 us to 2^40 ns (about 18 minutes):
// a percentile is read within one bucket, so it is off by at most 1/8 of its value.
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "rowpump/consumer.hpp"

namespace rowpump::metrics {

class IntervalStats {
public:
    static constexpr std::size_t per_doubling = 8;
    static constexpr int first_doubling = 10;  // 2^10 ns: below it, the first bucket
    static constexpr int last_doubling = 40;   // 2^40 ns and more: the last bucket
    static constexpr std::size_t bucket_count = 1 + (last_doubling - first_doubling) * per_doubling + 1;

    // The interval's figures, as take() returned them.
    struct Interval {
        std::array<std::uint64_t, 4> outcomes{};  // by TaskOutcome
        std::array<std::uint64_t, bucket_count> buckets{};
        std::uint64_t timed = 0;  // tasks whose latency is in the buckets

        std::uint64_t count(TaskOutcome outcome) const { return outcomes[static_cast<std::size_t>(outcome)]; }
        std::uint64_t tasks() const;
        // The latency below which a share p (0 < p <= 1) of the timed tasks fall; 0 when none was timed.
        std::chrono::nanoseconds percentile(double p) const;
    };

    // A task's outcome and how long it took; a negative latency counts the task but times nothing.
    void record(TaskOutcome outcome, std::chrono::nanoseconds latency);
    // This interval's figures; the next interval starts from zero.
    Interval take();

    static std::size_t bucket_of(std::chrono::nanoseconds latency);
    // The latencies bucket `index` holds: from `lower` up to (not including) `upper`.
    static std::chrono::nanoseconds lower(std::size_t index);
    static std::chrono::nanoseconds upper(std::size_t index);

private:
    std::array<std::atomic<std::uint64_t>, 4> outcomes_{};
    std::array<std::atomic<std::uint64_t>, bucket_count> buckets_{};
};

}  // namespace rowpump::metrics
