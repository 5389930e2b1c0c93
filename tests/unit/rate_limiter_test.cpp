// The rate cap (src/throttle/rate_limiter.hpp) on a stepped clock: writes wait their turn in rows, and a new rate
// applies to a write that is waiting already (0 frees it, a higher rate moves it up).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "throttle/rate_limiter.hpp"
#include "stepped_clock.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;
using test::SteppedClock;

// A write of `rows` on its own thread; done() once acquire returned.
class Waiter {
public:
    Waiter(RateLimiter& limiter, std::uint64_t rows)
        : done_(std::async(std::launch::async, [&limiter, rows, this] { limiter.acquire(rows, stop_); })) {}
    ~Waiter() {
        stop_.store(true);  // frees it whatever happened, so that a failing test ends
        done_.wait();
    }
    bool returns_within(std::chrono::milliseconds limit) { return done_.wait_for(limit) == std::future_status::ready; }

private:
    std::atomic<bool> stop_{false};
    std::future<void> done_;
};

// A first write of `rows` that has nothing before it: true when it went through at once.
bool first_write_passes(RateLimiter& limiter, std::uint64_t rows) {
    Waiter first(limiter, rows);
    return first.returns_within(2s);
}

TEST(RateLimiter, AWriteWaitsUntilTheRowsBeforeItArePaid) {
    SteppedClock clock;
    RateLimiter limiter(100, clock.source());
    ASSERT_TRUE(first_write_passes(limiter, 100)) << "the first write has nothing before it";
    Waiter second(limiter, 100);
    clock.step(900ms);
    EXPECT_FALSE(second.returns_within(200ms)) << "90 of the 100 rows before it are paid";
    clock.step(100ms);
    EXPECT_TRUE(second.returns_within(2s)) << "100 rows at 100 rows/s: its turn after 1 s";
}

TEST(RateLimiter, NoCapFreesAWriteThatIsWaitingAlready) {
    SteppedClock clock;
    RateLimiter limiter(1, clock.source());
    ASSERT_TRUE(first_write_passes(limiter, 1000));
    Waiter second(limiter, 1000);  // its turn is 1000 s away, and the clock does not move
    EXPECT_FALSE(second.returns_within(100ms));
    limiter.set_rate(0);
    EXPECT_TRUE(second.returns_within(1s)) << "rate 0 (no cap) must free the page that waits now";
}

TEST(RateLimiter, AHigherRateMovesAWaitingWriteUp) {
    SteppedClock clock;
    RateLimiter limiter(1, clock.source());
    ASSERT_TRUE(first_write_passes(limiter, 100));
    Waiter second(limiter, 100);
    clock.step(1s);  // 1 of the 100 rows before it paid at 1 row/s
    limiter.set_rate(1000);  // the other 99 take 99 ms now
    EXPECT_FALSE(second.returns_within(100ms));
    clock.step(99ms);
    EXPECT_TRUE(second.returns_within(1s)) << "at 1000 rows/s its turn comes 99 ms later, not 99 s";
    // And the line goes on at the new rate: the next 100 rows wait for those 100.
    Waiter third(limiter, 100);
    EXPECT_FALSE(third.returns_within(100ms));
    clock.step(100ms);
    EXPECT_TRUE(third.returns_within(1s));
}

TEST(RateLimiter, AnIdleLimiterSavesNoBurst) {
    SteppedClock clock;
    RateLimiter limiter(100, clock.source());
    ASSERT_TRUE(first_write_passes(limiter, 100));
    clock.step(60s);  // idle for a minute
    Waiter second(limiter, 100);
    ASSERT_TRUE(second.returns_within(2s));
    Waiter third(limiter, 100);
    EXPECT_FALSE(third.returns_within(100ms)) << "the idle minute is no credit for 6000 rows at once";
    clock.step(1s);
    EXPECT_TRUE(third.returns_within(2s));
}

TEST(RateLimiter, StopFreesAWaiter) {
    SteppedClock clock;
    RateLimiter limiter(1, clock.source());
    std::atomic<bool> stop{false};
    limiter.acquire(100, stop);
    auto waiting = std::async(std::launch::async, [&] { limiter.acquire(100, stop); });
    EXPECT_EQ(waiting.wait_for(100ms), std::future_status::timeout);
    stop.store(true);
    EXPECT_EQ(waiting.wait_for(1s), std::future_status::ready);
}

}  // namespace
}  // namespace rowpump
