#pragma once
// A consumer's task outcome as the metrics count it: /metrics (queue consume --http) and the interval
// lines (--log-interval) both count through this one mapping, so the two never disagree.
#include "metrics/consumer_metrics.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::cli {

inline metrics::TaskOutcome metric_outcome(TaskOutcome outcome) {
    switch (outcome) {
        case TaskOutcome::done: return metrics::TaskOutcome::processed;
        case TaskOutcome::retried: return metrics::TaskOutcome::retried;
        case TaskOutcome::dead: return metrics::TaskOutcome::dead;
        case TaskOutcome::stale: break;
    }
    return metrics::TaskOutcome::stale;
}

}  // namespace rowpump::cli
