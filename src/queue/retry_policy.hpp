#pragma once
// The parts of RetryPolicy both queues share: checking it, and the random factor that spreads retries.
#include "rowpump/queue.hpp"

namespace rowpump::queue {

// Throws UsageError for a policy that cannot work: max_attempts < 1, a negative or zero delay, a cap
// below the base, jitter outside [0, 1].
void validate(const RetryPolicy& policy);

// A factor in [1 - jitter, 1] in millionths, drawn per failure, by which the retry delay is scaled.
std::int64_t jitter_millionths(const RetryPolicy& policy);

}  // namespace rowpump::queue
