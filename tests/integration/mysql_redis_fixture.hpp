#pragma once
// A test with both local servers: MySqlTest's tables, the local Redis, a queue name no other test or process
// uses (rp_test:<suite>.<test>:<pid>) and a job id of its own. The queue, its sub-keys and the job's Redis
// state are deleted before and after each test. Fails (never skips) when either server is not set up.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "integration/mysql_fixture.hpp"
#include "integration/redis_fixture.hpp"
#include "rowpump/job.hpp"

namespace rowpump::test {

class MySqlRedisTest : public MySqlTest {
protected:
    void SetUp() override {
        MySqlTest::SetUp();
        if (HasFatalFailure()) return;
        connect_local_redis(redis_url_, redis_);
        if (HasFatalFailure()) return;
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        const std::string name = std::string(test->test_suite_name()) + "." + test->name();
        queue_ = "rp_test:" + name + ":" + std::to_string(::getpid());
        job_id_ = "rp_test_" + name + "_" + std::to_string(::getpid());
        clear_redis();
    }
    void TearDown() override {
        if (redis_) clear_redis();
        MySqlTest::TearDown();
    }

    // A job that reads `table` in fixed pages of `page_size` rows into the test's Redis list.
    JobSpec redis_job(const std::string& table, std::size_t page_size = 50) const {
        JobSpec spec;
        spec.mysql = options();
        spec.read.table = table;
        spec.read.page_size = page_size;
        spec.read.target_page_time = std::chrono::milliseconds(0);
        spec.sink.uri = redis_url_;
        spec.sink.queue = queue_;
        return spec;
    }

    // A thread that sets `stop` once the test's list holds `rows` items (or after 20 s): a run stopped
    // there is in the middle of its ranges. Join it after the run.
    std::thread stop_at(std::uint64_t rows, std::atomic<bool>& stop) const {
        return std::thread([this, rows, &stop] {
            redis::Connection connection(RedisOptions::from_url(redis_url_));
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (static_cast<std::uint64_t>(connection.command({"LLEN", queue_}).integer) < rows &&
                   std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            stop.store(true);
        });
    }

    // run_job(spec), stopped through its stop flag once the test's list holds `rows` items (stop_at).
    JobSummary run_stopped_at(const JobSpec& spec, std::uint64_t rows) const {
        std::atomic<bool> stop{false};
        JobControl control;
        control.stop = &stop;
        std::thread stopper = stop_at(rows, stop);
        const JobSummary summary = run_job(spec, control);
        stopper.join();
        return summary;
    }

    // The queue and its sub-keys (Q:delayed, Q:p:<name>), and the job's state.
    void clear_redis() {
        redis_->command({"DEL", queue_});
        delete_keys(*redis_, queue_ + ":*");
        delete_keys(*redis_, "rowpump:job:" + job_id_ + ":*");
    }

    std::string redis_url_;
    std::optional<redis::Connection> redis_;
    std::string queue_;
    std::string job_id_;
};

}  // namespace rowpump::test
