#pragma once
// Tasks counted by what they came to (rowpump::TaskOutcome): one set of counters for a consumer run's
// report and for `queue consume`'s /metrics and /status, so that the two cannot count differently.
// Counting is one relaxed atomic increment, as a consumer runs 100k tasks/s and more.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "rowpump/consumer.hpp"

namespace rowpump::metrics {

struct OutcomeCounts {
    std::uint64_t done = 0, retried = 0, dead = 0, stale = 0;
    std::uint64_t failed() const { return retried + dead; }  // results other than ok
};

class OutcomeCounters {
public:
    void count(TaskOutcome outcome, std::uint64_t tasks = 1) {
        counts_[static_cast<std::size_t>(outcome)].fetch_add(tasks, std::memory_order_relaxed);
    }
    OutcomeCounts counts() const {
        const auto of = [this](TaskOutcome outcome) {
            return counts_[static_cast<std::size_t>(outcome)].load(std::memory_order_relaxed);
        };
        return {of(TaskOutcome::done), of(TaskOutcome::retried), of(TaskOutcome::dead), of(TaskOutcome::stale)};
    }

private:
    std::array<std::atomic<std::uint64_t>, 4> counts_{};
};

}  // namespace rowpump::metrics
