// run_workers: every worker of a job runs at once, beyond the core count and beside another job of the
// same process; the first failure halts the others and is rethrown.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "run/run_workers.hpp"

namespace rowpump {
namespace {

// Workers that each wait, up to a deadline, until all of them have arrived.
class Rendezvous {
public:
    explicit Rendezvous(std::size_t expected) : expected_(expected) {}
    // Whether all arrived before the deadline.
    bool arrive_and_wait(std::chrono::seconds deadline) {
        std::unique_lock lock(mutex_);
        if (++arrived_ == expected_) all_.notify_all();
        return all_.wait_for(lock, deadline, [&] { return arrived_ >= expected_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable all_;
    std::size_t expected_;
    std::size_t arrived_ = 0;
};

std::size_t more_workers_than_cores() { return std::max(8u, 4 * std::thread::hardware_concurrency()); }

std::size_t run_and_count_met(std::size_t workers) {
    Rendezvous rendezvous(workers);
    std::atomic<std::size_t> met{0};
    std::atomic<bool> halt{false};
    run_workers(workers, halt, nullptr, [&] {
        if (rendezvous.arrive_and_wait(std::chrono::seconds(5))) ++met;
    });
    return met;
}

TEST(RunWorkers, RunsEveryWorkerAtOnceBeyondTheCoreCount) {
    const std::size_t workers = more_workers_than_cores();
    EXPECT_EQ(run_and_count_met(workers), workers);
}

// A second job of the same program, started first with a single worker, leaves the first its workers.
TEST(RunWorkers, AnotherJobOfTheProcessDoesNotBoundItsWorkers) {
    std::mutex mutex;
    std::condition_variable changed;
    bool small_job_running = false;
    bool big_job_done = false;
    std::thread small_job([&] {
        std::atomic<bool> halt{false};
        run_workers(1, halt, nullptr, [&] {
            std::unique_lock lock(mutex);
            small_job_running = true;
            changed.notify_all();
            changed.wait_for(lock, std::chrono::seconds(30), [&] { return big_job_done; });
        });
    });
    {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return small_job_running; });
    }
    const std::size_t workers = more_workers_than_cores();
    const std::size_t met = run_and_count_met(workers);
    {
        const std::lock_guard lock(mutex);
        big_job_done = true;
    }
    changed.notify_all();
    small_job.join();
    EXPECT_EQ(met, workers);
}

TEST(RunWorkers, TheFirstFailureHaltsTheOthersAndIsRethrown) {
    std::atomic<bool> halt{false};
    std::atomic<int> woken{0};
    std::atomic<int> calls{0};
    try {
        run_workers(4, halt, [&] { ++woken; }, [&] {
            if (calls++ == 0) throw std::runtime_error("first");
            while (!halt.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            throw std::runtime_error("later");
        });
        FAIL() << "no failure was rethrown";
    } catch (const std::runtime_error& error) {
        EXPECT_STREQ(error.what(), "first");
    }
    EXPECT_TRUE(halt.load());
    EXPECT_EQ(woken.load(), 4);
    EXPECT_EQ(calls.load(), 4);
}

}  // namespace
}  // namespace rowpump
