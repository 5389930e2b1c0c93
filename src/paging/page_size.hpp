#pragma once
// Adapts the page size to a target time per page: big enough that round trips do not dominate, small
// enough that a page never holds a lock, a connection or memory for long.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>

#include "rowpump/reader.hpp"

namespace rowpump {

// The keyset main pass reads this many pages with one statement and cuts them on the client: each
// statement costs MariaDB about 0.5 ms of CPU to parse, plan and start (bench/results/server_cpu.md),
// while larger pages would cost the client page faults. The stretch's LIMIT is this times the page size,
// so it is bounded by --max-page-size.
inline constexpr std::size_t pages_per_stretch = 16;

class PageSizer {
public:
    explicit PageSizer(const ReadSpec& spec)
        : size_(spec.page_size), min_(spec.min_page_size), max_(spec.max_page_size), target_(spec.target_page_time),
          override_(spec.page_size_override) {
        if (adaptive()) size_ = std::clamp(size_, min_, max_);
    }

    std::size_t size() const {
        const std::size_t set = override_ ? override_->load() : 0;
        return set > 0 ? set : size_;
    }

    // After a page of `rows` took `elapsed`: move toward the target, at most doubling or halving at once
    // so one slow page (a cold cache, a lock) does not swing the size.
    void observe(std::size_t rows, std::chrono::steady_clock::duration elapsed) {
        if (!adaptive() || rows < size_ || (override_ && override_->load() > 0)) return;
        const double seconds = std::chrono::duration<double>(elapsed).count();
        const double target = std::chrono::duration<double>(target_).count();
        const double factor = std::clamp(seconds > 0 ? target / seconds : 2.0, 0.5, 2.0);
        size_ = std::clamp(static_cast<std::size_t>(static_cast<double>(size_) * factor), min_, max_);
    }

private:
    bool adaptive() const { return target_.count() > 0; }
    std::size_t size_;
    std::size_t min_;
    std::size_t max_;
    std::chrono::milliseconds target_;
    const std::atomic<std::size_t>* override_;
};

}  // namespace rowpump
