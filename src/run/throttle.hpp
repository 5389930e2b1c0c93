#pragma once
// Caps rows per second over all workers: each write reserves its rows on a shared timeline and sleeps
// until its slot comes, so bursts are smoothed without a background thread. The cap can be changed while
// the run goes on (POST /rate); a write already waiting for its slot keeps it.
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

    // 0: no cap. The timeline restarts now, so a higher rate applies at once.
    void set_rate(double rows_per_second) {
        std::lock_guard lock(mutex_);
        rate_.store(rows_per_second);
        next_ = std::min(next_, std::chrono::steady_clock::now());
    }
    double rate() const { return rate_.load(); }

    // Returns at once when `stop` is set, before or during the wait: a stopping run writes the pages it
    // holds without the cap instead of spending minutes on rows it has already read.
    void acquire(std::uint64_t rows, const std::atomic<bool>& stop) {
        if (rate_.load(std::memory_order_relaxed) <= 0 || stop.load()) return;
        using clock = std::chrono::steady_clock;
        clock::time_point slot;
        {
            std::lock_guard lock(mutex_);
            const double rate = rate_.load();
            if (rate <= 0) return;
            const auto now = clock::now();
            next_ = std::max(next_, now);
            slot = next_;
            next_ += std::chrono::duration_cast<clock::duration>(
                std::chrono::duration<double>(static_cast<double>(rows) / rate));
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
        return std::max(min_page_size, static_cast<std::size_t>(rate_.load() / 4));
    }

private:
    static constexpr std::chrono::milliseconds stop_poll{50};
    std::atomic<double> rate_;
    std::mutex mutex_;
    std::chrono::steady_clock::time_point next_{};
};

}  // namespace rowpump
