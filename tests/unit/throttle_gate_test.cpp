// The throttle gate without a server (a pause file spec needs none), on a stepped clock: a pause closes
// the gate before pause() returns, for the pages already read too; held time is the clock's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "throttle/control_routes.hpp"
#include "throttle/throttle_gate.hpp"
#include "stepped_clock.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;
using test::SteppedClock;

ThrottleSpec pause_file_spec() {
    ThrottleSpec spec;
    // A pause file that never exists: the gate has its watcher, and nothing holds it but pause().
    spec.pause_file = ::testing::TempDir() + "rp_no_pause_file_" + std::to_string(::getpid());
    return spec;
}

// Polls `ready` for up to two seconds.
template <class Ready>
bool within_two_seconds(Ready&& ready) {
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    while (!ready()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

TEST(ThrottleGate, APauseHoldsThePagesAlreadyReadBeforeItReturns) {
    SteppedClock clock;
    ThrottleGate gate(pause_file_spec(), MySqlOptions{}, 0, [&] { return clock.now(); });
    std::atomic<bool> stop{false};
    gate.pause();
    EXPECT_EQ(gate.view().state, GateState::paused) << "closed when pause() returns, not at the next look";
    std::atomic<int> written{0};
    auto writer = std::async(std::launch::async, [&] {
        const auto writing = gate.before_write(stop, [] {});
        written.fetch_add(1);
    });
    auto reader = std::async(std::launch::async, [&] { gate.before_read(stop, [] {}); });
    ASSERT_TRUE(within_two_seconds([&] { return gate.view().pages_held == 1 && gate.view().workers_held == 1; }))
        << "a page read before the pause waits at the gate, and so does the next read";
    EXPECT_EQ(written.load(), 0);
    EXPECT_EQ(gate.view().pages_writing, 0);
    gate.resume();
    EXPECT_EQ(writer.wait_for(2s), std::future_status::ready);
    EXPECT_EQ(reader.wait_for(2s), std::future_status::ready);
    EXPECT_EQ(written.load(), 1);
    EXPECT_EQ(gate.view().pages_writing, 0) << "the page's writing ended with its Writing";
}

TEST(ThrottleGate, APageBeingWrittenIsCountedUntilItsWritingEnds) {
    ThrottleGate gate(pause_file_spec(), MySqlOptions{}, 0);
    std::atomic<bool> stop{false};
    {
        const auto writing = gate.before_write(stop, [] {});
        gate.pause();
        EXPECT_EQ(gate.view().pages_writing, 1) << "past the gate before the pause: it may still land";
    }
    EXPECT_EQ(gate.view().pages_writing, 0);
}

TEST(ThrottleGate, StopFreesWorkersHeldByAPause) {
    ThrottleGate gate(pause_file_spec(), MySqlOptions{}, 0);
    std::atomic<bool> stop{false};
    gate.pause();
    auto reader = std::async(std::launch::async, [&] { gate.before_read(stop, [] {}); });
    ASSERT_TRUE(within_two_seconds([&] { return gate.view().workers_held == 1; }));
    stop.store(true);
    EXPECT_EQ(reader.wait_for(2s), std::future_status::ready);
}

TEST(ThrottleGate, HeldSecondsAreTheClocksTimeWhilePaused) {
    SteppedClock clock;
    ThrottleGate gate(pause_file_spec(), MySqlOptions{}, 0, [&] { return clock.now(); });
    clock.step(10s);  // running: held by nothing
    gate.pause();
    clock.step(2500ms);
    gate.resume();
    clock.step(7s);  // running again
    gate.pause();
    clock.step(500ms);
    const GateView view = gate.view();
    gate.resume();
    EXPECT_EQ(view.state, GateState::paused);
    const GateView after = gate.view();
    ASSERT_TRUE(after.held_seconds.count("paused"));
    EXPECT_DOUBLE_EQ(after.held_seconds.at("paused"), 3.0);
    EXPECT_FALSE(after.held_seconds.count("pause_file"));
}

// /status rounds its seconds to 3 decimals: 2.972, not 2.9716128669999999; still JSON numbers.
TEST(ThrottleGate, StatusRoundsItsSeconds) {
    SteppedClock clock;
    ThrottleGate gate(pause_file_spec(), MySqlOptions{}, 1234.56789, [&] { return clock.now(); });
    gate.pause();
    clock.step(std::chrono::nanoseconds(2971612867));
    gate.resume();
    const http::Response status = throttle::handle_control(gate, http::Request{"GET", "/status", {}, {}});
    ASSERT_EQ(status.status, 200);
    EXPECT_NE(status.body.find("\"held_seconds\":{\"paused\":2.972}"), std::string::npos) << status.body;
    EXPECT_NE(status.body.find("\"rate_limit\":1234.568,"), std::string::npos) << status.body;
}

}  // namespace
}  // namespace rowpump
