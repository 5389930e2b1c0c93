#pragma once
// A Prometheus histogram with fixed buckets: counts per bucket, a sum and a count, safe to observe from
// several threads at once.
#include <mutex>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "metrics/prometheus_text.hpp"

namespace rowpump::metrics {

class Histogram {
public:
    // Upper bounds, ascending; +Inf is added.
    explicit Histogram(std::vector<double> bounds);
    void observe(double value);
    // The family's _bucket (cumulative, with le labels), _sum and _count samples.
    void write(PrometheusText& page, const std::string& name, const std::string& help, const Labels& labels = {}) const;
    // The sum and the count of what was observed, read together.
    std::pair<double, std::uint64_t> sum_and_count() const;

private:
    std::vector<double> bounds_;
    mutable std::mutex mutex_;
    std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; the last is +Inf
    double sum_ = 0;
    std::uint64_t count_ = 0;
};

}  // namespace rowpump::metrics
