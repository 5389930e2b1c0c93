#pragma once
// Caps rows per second over all workers: each write reserves its rows on a shared timeline and sleeps
// until its slot comes, so bursts are smoothed without a background thread.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace rowpump {

class RateLimiter {
public:
    explicit RateLimiter(double rows_per_second) : rate_(rows_per_second) {}

    // Returns at once when `stop` is set, before or during the wait: a stopping run writes the pages it
    // holds without the cap instead of spending minutes on rows it has already read.
    void acquire(std::uint64_t rows, const std::atomic<bool>& stop) {
        if (rate_ <= 0 || stop.load()) return;
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
        while (!stop.load()) {
            const auto now = clock::now();
            if (now >= slot) return;
            std::this_thread::sleep_for(std::min<clock::duration>(slot - now, stop_poll));
        }
    }

    // The page size that a rate allows: a quarter of a second of rows, so that the pages in flight (and
    // with them what a stop still writes) stay small however large pages may grow without a cap.
    std::size_t page_cap(std::size_t min_page_size) const {
        return std::max(min_page_size, static_cast<std::size_t>(rate_ / 4));
    }

private:
    static constexpr std::chrono::milliseconds stop_poll{50};
    double rate_;
    std::mutex mutex_;
    std::chrono::steady_clock::time_point next_{};
};

}  // namespace rowpump
