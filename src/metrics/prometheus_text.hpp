#pragma once
// The Prometheus text exposition format (version 0.0.4): each family once, with its HELP and TYPE lines
// before its samples, label values escaped, so that `promtool check metrics` accepts the page.
#include <string>
#include <utility>
#include <vector>

namespace rowpump::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
public:
    // Starts a family: `type` is counter, gauge or histogram. A counter's name ends in _total.
    void family(const std::string& name, const std::string& type, const std::string& help);
    void sample(const std::string& name, double value, const Labels& labels = {});
    const std::string& text() const { return text_; }

    static constexpr const char* content_type = "text/plain; version=0.0.4; charset=utf-8";

private:
    std::string text_;
};

}  // namespace rowpump::metrics
