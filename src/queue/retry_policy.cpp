#include "queue/retry_policy.hpp"

#include <random>

namespace rowpump::queue {

void validate(const RetryPolicy& policy) {
    if (policy.max_attempts < 1)
        throw UsageError("max attempts must be at least 1, not " + std::to_string(policy.max_attempts));
    if (policy.backoff_base.count() <= 0) throw UsageError("the retry backoff base must be positive");
    if (policy.backoff_cap < policy.backoff_base)
        throw UsageError("the retry backoff cap (" + std::to_string(policy.backoff_cap.count()) +
                         " ms) is below its base (" + std::to_string(policy.backoff_base.count()) + " ms)");
    if (!(policy.jitter >= 0 && policy.jitter <= 1))
        throw UsageError("retry jitter must be between 0 and 1, not " + std::to_string(policy.jitter));
}

std::int64_t jitter_millionths(const RetryPolicy& policy) {
    static thread_local std::mt19937_64 random{std::random_device{}()};
    const auto low = static_cast<std::int64_t>((1.0 - policy.jitter) * 1'000'000);
    return std::uniform_int_distribution<std::int64_t>(low, 1'000'000)(random);
}

}  // namespace rowpump::queue
