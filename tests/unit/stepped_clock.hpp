#pragma once
// A clock that moves only when the test steps it, for the time-driven parts (the rate limiter, the
// throttle gate's held seconds) that take their clock as a parameter.
#include <atomic>
#include <chrono>
#include <cstdint>

#include "throttle/rate_limiter.hpp"

namespace rowpump::test {

class SteppedClock {
public:
    std::chrono::steady_clock::time_point now() const {
        return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(nanos_.load()));
    }
    void step(std::chrono::nanoseconds by) { nanos_.fetch_add(by.count()); }
    SteadyNow source() {
        return [this] { return now(); };
    }

private:
    std::atomic<std::int64_t> nanos_{std::chrono::nanoseconds(std::chrono::seconds(1000)).count()};
};

}  // namespace rowpump::test
