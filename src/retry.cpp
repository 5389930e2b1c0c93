#include "retry.hpp"

#include <algorithm>
#include <random>

namespace rowpump {

std::atomic<std::uint64_t>& retries_total() {
    static std::atomic<std::uint64_t> retries{0};  // one per process, in the library
    return retries;
}

std::chrono::milliseconds retry_backoff(int attempt) {
    static thread_local std::mt19937 random{std::random_device{}()};
    const auto base = std::chrono::milliseconds(100) * (1 << std::clamp(attempt - 1, 0, 5));
    std::uniform_int_distribution<long> jitter(0, base.count());
    return base + std::chrono::milliseconds(jitter(random));
}

std::string describe_duration(std::chrono::milliseconds duration) {
    if (duration.count() % 1000 == 0) return std::to_string(duration.count() / 1000) + " s";
    return std::to_string(duration.count()) + " ms";
}

std::chrono::milliseconds RetryDeadline::left() const {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline_) return std::chrono::milliseconds(0);
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now);
}

std::chrono::milliseconds RetryDeadline::next_wait(int attempt) const {
    return std::max(std::min(retry_backoff(attempt), left()), std::chrono::milliseconds(1));
}

}  // namespace rowpump
