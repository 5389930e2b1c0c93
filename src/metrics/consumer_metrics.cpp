#include "metrics/consumer_metrics.hpp"

#include <tuple>

namespace rowpump::metrics {

ConsumerMetrics::ConsumerMetrics() : duration_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}) {}

void ConsumerMetrics::count(TaskOutcome outcome) {
    switch (outcome) {
        case TaskOutcome::processed: ++processed_; break;
        case TaskOutcome::retried: ++failed_, ++retried_; break;
        case TaskOutcome::dead: ++failed_, ++dead_; break;
        case TaskOutcome::stale: ++stale_; break;
    }
}

std::string ConsumerMetrics::page(const std::string& queue) const {
    PrometheusText page;
    const Labels labels{{"queue", queue}};
    const auto counter = [&](const char* name, const char* help, const std::atomic<std::uint64_t>& value) {
        page.family(name, "counter", help);
        page.sample(name, static_cast<double>(value.load()), labels);
    };
    counter("rowpump_consumer_tasks_processed_total", "Tasks whose command succeeded and that were acknowledged.",
            processed_);
    counter("rowpump_consumer_tasks_failed_total", "Tasks whose command failed (retried or dead).", failed_);
    counter("rowpump_consumer_tasks_retried_total", "Failed tasks that will be tried again after a backoff.", retried_);
    counter("rowpump_consumer_tasks_dead_total", "Failed tasks that reached --max-attempts and are dead.", dead_);
    counter("rowpump_consumer_tasks_stale_total", "Tasks whose claim was taken away before they were finished.",
            stale_);
    page.family("rowpump_consumer_tasks_in_flight", "gauge", "Tasks whose command is running now.");
    page.sample("rowpump_consumer_tasks_in_flight", static_cast<double>(in_flight_.load()), labels);
    duration_.write(page, "rowpump_consumer_task_duration_seconds", "How long each task's command ran.", labels);
    return page.text();
}

ConsumerMetrics::Counts ConsumerMetrics::counts() const {
    Counts out;
    out.processed = processed_.load();
    out.failed = failed_.load();
    out.retried = retried_.load();
    out.dead = dead_.load();
    out.stale = stale_.load();
    out.in_flight = in_flight_.load();
    std::tie(out.seconds_sum, out.timed) = duration_.sum_and_count();
    return out;
}

}  // namespace rowpump::metrics
