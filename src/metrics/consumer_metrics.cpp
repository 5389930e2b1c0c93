#include "metrics/consumer_metrics.hpp"

#include <tuple>

namespace rowpump::metrics {

ConsumerMetrics::ConsumerMetrics() : duration_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}) {}

std::string ConsumerMetrics::page(const std::string& queue) const {
    PrometheusText page;
    const Labels labels{{"queue", queue}};
    const OutcomeCounts outcomes = outcomes_.counts();
    const auto counter = [&](const char* name, const char* help, std::uint64_t value) {
        page.family(name, "counter", help);
        page.sample(name, static_cast<double>(value), labels);
    };
    counter("rowpump_consumer_tasks_processed_total", "Tasks whose command succeeded and that were acknowledged.",
            outcomes.done);
    counter("rowpump_consumer_tasks_failed_total", "Tasks whose command failed (retried or dead).",
            outcomes.failed());
    counter("rowpump_consumer_tasks_retried_total", "Failed tasks that will be tried again after a backoff.",
            outcomes.retried);
    counter("rowpump_consumer_tasks_dead_total", "Failed tasks that reached --max-attempts and are dead.", outcomes.dead);
    counter("rowpump_consumer_tasks_stale_total", "Tasks whose claim was taken away before they were finished.",
            outcomes.stale);
    page.family("rowpump_consumer_tasks_in_flight", "gauge", "Tasks whose command is running now.");
    page.sample("rowpump_consumer_tasks_in_flight", static_cast<double>(in_flight_.load()), labels);
    duration_.write(page, "rowpump_consumer_task_duration_seconds", "How long each task's command ran.", labels);
    return page.text();
}

ConsumerMetrics::Counts ConsumerMetrics::counts() const {
    Counts out;
    out.outcomes = outcomes_.counts();
    out.in_flight = in_flight_.load();
    std::tie(out.seconds_sum, out.timed) = duration_.sum_and_count();
    return out;
}

}  // namespace rowpump::metrics
