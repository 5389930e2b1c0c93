// Stopping the CLI, and keeping it quiet:
//  - SIGTERM under --rate: the run reads no more pages and writes what it holds without the cap, so it
//    ends within a second or two (it used to take 21 s and write 26000 more rows at --rate 1000);
//  - a second signal exits at once and says what that means before it does;
//  - -q prints nothing but errors (it used to print the done line and a line per range).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class CliStopTest : public MySqlRedisTest {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"cli_stop", "(id BIGINT PRIMARY KEY, v VARCHAR(40) NOT NULL)",
                           "INSERT INTO {t} SELECT seq, SHA1(seq) FROM seq_1_to_30000"};
    }

    std::vector<std::string> backfill(std::vector<std::string> extra) const {
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_for_command_line(), "--table", table_,
                                      "--sink", redis_url_, "--queue", queue_, "--partitions", "2", "--workers", "2"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }
    long long queued() { return redis_->command({"LLEN", queue_}).integer; }
    void wait_for_rows(long long rows) {
        const auto deadline = Clock::now() + 30s;
        while (queued() < rows && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    }

};

TEST_F(CliStopTest, AStopUnderARateCapEndsSoonAndWritesOnlyWhatItHeld) {
    CliProcess run(backfill({"--rate", "1000"}));
    wait_for_rows(1500);
    run.signal(SIGTERM);
    const long long at_signal = queued();
    const auto signalled = Clock::now();
    const auto status = run.wait_for(30s);
    const double seconds = std::chrono::duration<double>(Clock::now() - signalled).count();
    ASSERT_TRUE(status) << "still running 30 s after SIGTERM\n" << run.describe();
    EXPECT_EQ(*status, 3) << run.describe();
    EXPECT_LT(seconds, 3.0) << "the pages in hand were written at the rate cap\n" << run.describe();
    // Two workers, each with at most three quarter-second pages (250 rows at --rate 1000) in flight.
    EXPECT_LE(queued() - at_signal, 1600) << run.describe();
    EXPECT_NE(run.err().find("stopping: reading no more pages"), std::string::npos) << run.describe();
    EXPECT_NE(run.err().find("interrupted"), std::string::npos) << run.describe();
}

TEST_F(CliStopTest, ASecondSignalSaysWhatItDoesAndExitsAtOnce) {
    CliProcess run(backfill({"--rate", "500"}));
    wait_for_rows(200);
    run.signal(SIGTERM);
    std::this_thread::sleep_for(5ms);
    run.signal(SIGTERM);
    const auto status = run.wait_for(10s);
    ASSERT_TRUE(status) << run.describe();
    EXPECT_EQ(*status, 128 + SIGTERM) << run.describe();
    EXPECT_NE(run.err().find("second stop signal: exiting now"), std::string::npos) << run.describe();
    EXPECT_NE(run.err().find("--resume"), std::string::npos) << run.describe();
}

TEST_F(CliStopTest, QuietPrintsNothingButErrors) {
    std::vector<std::string> args{"-q"};
    for (auto& arg : backfill({})) args.push_back(arg);
    CliProcess run(args);
    const auto status = run.wait_for(60s);
    ASSERT_TRUE(status) << run.describe();
    EXPECT_EQ(*status, 0) << run.describe();
    EXPECT_EQ(run.err(), "") << run.describe();
    EXPECT_EQ(queued(), 30000);
}

}  // namespace
}  // namespace rowpump::test
