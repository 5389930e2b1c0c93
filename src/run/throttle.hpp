#pragma once
// Caps rows per second over all workers: each write reserves its rows on a shared timeline and sleeps
// until its slot comes, so bursts are smoothed without a background thread.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

namespace rowpump {

class RateLimiter {
public:
    explicit RateLimiter(double rows_per_second) : rate_(rows_per_second) {}

    void acquire(std::uint64_t rows) {
        if (rate_ <= 0) return;
        using clock = std::chrono::steady_clock;
        clock::time_point slot;
        {
            std::lock_guard lock(mutex_);
            const auto now = clock::now();
            next_ = std::max(next_, now);
            slot = next_;
            next_ += std::chrono::duration_cast<clock::duration>(
                std::chrono::duration<double>(static_cast<double>(rows) / rate_));
        }
        std::this_thread::sleep_until(slot);
    }

private:
    double rate_;
    std::mutex mutex_;
    std::chrono::steady_clock::time_point next_{};
};

}  // namespace rowpump
