#pragma once
// Caps rows per second over all workers: each write takes its place in one line of rows and waits until
// the rows before it are paid for at the rate, so bursts are smoothed without a background thread. The
// cap can be changed while the run goes on (POST /rate), and a change applies to the writes already
// waiting: their places are counted in rows, not in time, so 0 lets them all go at once and a higher
// rate moves them up.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace rowpump {

using SteadyNow = std::function<std::chrono::steady_clock::time_point()>;

class RateLimiter {
public:
    // `now`: the clock (a test's own steps it); waits themselves are real, at most stop_poll long, so
    // that a waiter looks at the clock, the rate and `stop` at least that often.
    explicit RateLimiter(double rows_per_second, SteadyNow now = &std::chrono::steady_clock::now)
        : now_(std::move(now)), rate_(rows_per_second) {}

    // 0: no cap.
    void set_rate(double rows_per_second) {
        {
            std::lock_guard lock(mutex_);
            settle(now_());  // what was paid so far, at the old rate
            rate_.store(rows_per_second);
        }
        changed_.notify_all();
    }
    double rate() const { return rate_.load(); }
    // Writes waiting for their turn now (/status: pages_waiting_for_rate).
    int waiting() const { return waiting_.load(); }

    // Returns at once when `stop` is set, before or during the wait: a stopping run writes the pages it
    // holds without the cap instead of spending minutes on rows it has already read.
    void acquire(std::uint64_t rows, const std::atomic<bool>& stop) {
        if (rate_.load(std::memory_order_relaxed) <= 0 || stop.load()) return;
        std::unique_lock lock(mutex_);
        settle(now_());
        const double place = queued_;  // rows ahead of this write in the line
        queued_ += static_cast<double>(rows);
        bool counted = false;
        while (!stop.load()) {
            const double rate = rate_.load();
            if (rate <= 0) break;
            const double ahead = place - (paid_ + rate * seconds_since(paid_at_, now_()));
            if (ahead <= 0) break;
            if (!counted) waiting_.fetch_add(1);
            counted = true;
            changed_.wait_for(lock, std::chrono::duration<double>(std::min(ahead / rate, stop_poll_seconds)));
        }
        if (counted) waiting_.fetch_sub(1);
    }

    // The page size that a rate allows: a quarter of a second of rows, so that the pages in flight (and
    // with them what a stop still writes) stay small however large pages may grow without a cap.
    std::size_t page_cap(std::size_t min_page_size) const {
        return std::max(min_page_size, static_cast<std::size_t>(rate_.load() / 4));
    }

private:
    static constexpr double stop_poll_seconds = 0.05;

    static double seconds_since(std::chrono::steady_clock::time_point then, std::chrono::steady_clock::time_point now) {
        return std::max(0.0, std::chrono::duration<double>(now - then).count());
    }
    // Brings paid_ up to `now` at the current rate. Never past the rows queued: an idle limiter saves no
    // credit for a burst later. mutex_ held.
    void settle(std::chrono::steady_clock::time_point now) {
        const double rate = rate_.load();
        paid_ = rate <= 0 ? queued_ : std::min(queued_, paid_ + rate * seconds_since(paid_at_, now));
        paid_at_ = now;
    }

    SteadyNow now_;
    std::atomic<double> rate_;
    std::atomic<int> waiting_{0};
    std::mutex mutex_;
    std::condition_variable changed_;
    double queued_ = 0;  // rows that took a place in the line since the start; guarded by mutex_
    double paid_ = 0;  // rows of the line the rate allowed by paid_at_
    std::chrono::steady_clock::time_point paid_at_{};
};

}  // namespace rowpump
