#include "metrics/histogram.hpp"

#include <algorithm>
#include <cstdio>

namespace rowpump::metrics {

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
    const auto bucket = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
    std::lock_guard lock(mutex_);
    ++counts_[bucket];
    sum_ += value;
    ++count_;
}

void Histogram::write(PrometheusText& page, const std::string& name, const std::string& help,
                      const Labels& labels) const {
    std::lock_guard lock(mutex_);
    page.family(name, "histogram", help);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        cumulative += counts_[i];
        char bound[32] = "+Inf";
        if (i < bounds_.size()) std::snprintf(bound, sizeof bound, "%g", bounds_[i]);
        Labels bucket = labels;
        bucket.emplace_back("le", bound);
        page.sample(name + "_bucket", static_cast<double>(cumulative), bucket);
    }
    page.sample(name + "_sum", sum_, labels);
    page.sample(name + "_count", static_cast<double>(count_), labels);
}

std::pair<double, std::uint64_t> Histogram::sum_and_count() const {
    std::lock_guard lock(mutex_);
    return {sum_, count_};
}

}  // namespace rowpump::metrics
