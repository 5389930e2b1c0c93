#pragma once
// What `rowpump queue consume` did, for its /metrics (--http): tasks by outcome, tasks running now, and
// how long each task's command took.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "metrics/histogram.hpp"
#include "metrics/outcome_counters.hpp"

namespace rowpump::metrics {

class ConsumerMetrics {
public:
    ConsumerMetrics();
    // A task's command starts; ends when the task is handled (or handling it failed).
    void started() { in_flight_.fetch_add(1); }
    void ended() { in_flight_.fetch_sub(1); }
    std::int64_t in_flight() const { return in_flight_.load(); }
    void took(double seconds) { duration_.observe(seconds); }
    void count(TaskOutcome outcome) { outcomes_.count(outcome); }
    // The Prometheus text page; `queue` labels every sample.
    std::string page(const std::string& queue) const;

    // The same counts, for the consumer's /status.
    struct Counts {
        OutcomeCounts outcomes;
        std::int64_t in_flight = 0;
        double seconds_sum = 0;  // how long the handler's calls took, over `timed` tasks
        std::uint64_t timed = 0;
    };
    Counts counts() const;

private:
    std::atomic<std::int64_t> in_flight_{0};
    OutcomeCounters outcomes_;
    Histogram duration_;
};

}  // namespace rowpump::metrics
