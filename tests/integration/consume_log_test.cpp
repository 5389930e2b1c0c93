// `queue consume --log-interval`: the interval lines of a real run add up to its tasks and their latency
// percentiles bracket the handler's known time per task; -v writes one line per task; a long interval does
// not hold the end of the run. tests/consumers/recording_handler.py takes $TASK_SECONDS per task.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/python_handlers.hpp"
#include "integration/queue_contents.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

const std::string recording_handler = recording_handler_command();

double milliseconds_of(const std::string& number, const std::string& unit) {
    const double value = std::stod(number);
    return unit == "s" ? value * 1000 : unit == "ms" ? value : unit == "us" ? value / 1000 : value / 1e6;
}

std::uint64_t whole(std::string text) {
    std::erase(text, ',');
    return std::stoull(text);
}

struct IntervalLine {
    std::uint64_t tasks = 0, ok = 0, failed = 0, dead = 0, stale = 0;
    double p50_ms = 0, p90_ms = 0, p99_ms = 0;
};

class ConsumeLogTest : public MySqlRedisTest {
protected:
    void TearDown() override {
        std::remove(record_.c_str());
        MySqlRedisTest::TearDown();
    }

    void push_tasks(int count) {
        std::vector<std::string> argv{"RPUSH", queue_};
        for (int n = 1; n <= count; ++n) argv.push_back("{\"n\":" + std::to_string(n) + "}");
        std::vector<std::string_view> views(argv.begin(), argv.end());
        redis_->command(views);
    }

    CliRun consume(std::vector<std::string> more, const std::string& task_seconds) const {
        std::vector<std::string> args{"queue", "consume", "--source", redis_url_, "--queue", queue_,
                                      "--pipe", recording_handler, "--until-empty"};
        args.insert(args.end(), more.begin(), more.end());
        return run_rowpump(args, {{"RECORD", record_}, {"TASK_SECONDS", task_seconds}});
    }

    std::vector<IntervalLine> interval_lines(const std::string& err) const {
        static const std::string number = "([0-9][0-9,]*)", duration = " ([0-9.]+) (ns|us|ms|s)";
        const std::regex pattern("queue " + queue_ + ": " + number + " tasks in the last [0-9.]+ s \\([0-9.,]+/s\\): " +
                                 number + " ok, " + number + " failed \\(retried\\), " + number + " dead, " + number +
                                 " stale; latency p50" + duration + ", p90" + duration + ", p99" + duration +
                                 "; [0-9]+ in flight");
        std::vector<IntervalLine> found;
        for (const std::string& line : lines(err)) {
            std::smatch match;
            if (!std::regex_search(line, match, pattern)) continue;
            found.push_back({whole(match[1]), whole(match[2]), whole(match[3]), whole(match[4]), whole(match[5]),
                             milliseconds_of(match[6], match[7]), milliseconds_of(match[8], match[9]),
                             milliseconds_of(match[10], match[11])});
        }
        return found;
    }

    std::string record_ = fresh_temp_path("consume_log_record");
};

TEST_F(ConsumeLogTest, IntervalLinesAddUpToTheRunAndBracketTheHandlersTime) {
    constexpr int tasks = 40;
    constexpr double task_ms = 50;  // the handler's sleep per task
    push_tasks(tasks);
    // One task in flight per handler: each task's latency is its own handling, not its batch's queue.
    const CliRun run = consume({"--concurrency", "2", "--inflight", "1", "--log-interval", "0.2", "-v"}, "0.05");
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    ASSERT_NE(run.err.find(std::to_string(tasks) + " done, 0 failed"), std::string::npos) << run.describe();

    const std::vector<IntervalLine> intervals = interval_lines(run.err);
    // 40 tasks of 50 ms on 2 handlers take 1 s at least: five intervals of 0.2 s.
    ASSERT_GE(intervals.size(), 4u) << run.describe();
    std::uint64_t total = 0, ok = 0;
    for (const IntervalLine& line : intervals) {
        EXPECT_EQ(line.tasks, line.ok + line.failed + line.dead + line.stale);
        total += line.tasks;
        ok += line.ok;
        // A percentile is read within a bucket 1/8 wide; no task is answered before its handler slept.
        EXPECT_GE(line.p50_ms, task_ms * 7 / 8);
        EXPECT_LE(line.p50_ms, line.p90_ms);
        EXPECT_LE(line.p90_ms, line.p99_ms);
    }
    // The upper side on the busiest interval: one with a task or two may hold a new handler's start-up.
    const IntervalLine busiest = *std::max_element(
        intervals.begin(), intervals.end(), [](const IntervalLine& a, const IntervalLine& b) { return a.tasks < b.tasks; });
    EXPECT_LT(busiest.p50_ms, task_ms * 4) << "the p50 is far above the handler's time\n" << run.describe();
    EXPECT_EQ(total, static_cast<std::uint64_t>(tasks)) << run.describe();
    EXPECT_EQ(ok, static_cast<std::uint64_t>(tasks));

    // -v: one line per task, named as the consumer's warnings name a Redis task, with its latency.
    const std::regex per_task("queue " + queue_ + R"(: task #[0-9a-f]{8} \([0-9]+ bytes\), attempt 1: ok in ([0-9.]+) (us|ms|s))");
    int task_lines = 0;
    for (const std::string& line : lines(run.err)) {
        std::smatch match;
        if (!std::regex_search(line, match, per_task)) continue;
        ++task_lines;
        EXPECT_GE(milliseconds_of(match[1], match[2]), task_ms * 0.99) << line;
    }
    EXPECT_EQ(task_lines, tasks) << run.describe();
}

TEST_F(ConsumeLogTest, WithoutVerboseThereIsNoLinePerTaskAndZeroLogsNoInterval) {
    push_tasks(20);
    const CliRun quiet = consume({"--log-interval", "0"}, "0");
    ASSERT_EQ(quiet.exit_code, 0) << quiet.describe();
    EXPECT_TRUE(interval_lines(quiet.err).empty()) << quiet.describe();
    EXPECT_EQ(quiet.err.find(", attempt 1: ok in"), std::string::npos) << quiet.describe();
    EXPECT_NE(quiet.err.find("20 done"), std::string::npos) << quiet.describe();
}

TEST_F(ConsumeLogTest, ALongIntervalDoesNotHoldTheEndOfTheRun) {
    push_tasks(5);
    const auto started = std::chrono::steady_clock::now();
    const CliRun run = consume({"--log-interval", "600"}, "0");
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_LT(took, 30s) << "the interval thread held the exit";
    // The part of an interval run before the end gets its line, before the run's last line.
    const std::vector<IntervalLine> intervals = interval_lines(run.err);
    ASSERT_EQ(intervals.size(), 1u) << run.describe();
    EXPECT_EQ(intervals[0].tasks, 5u);
    EXPECT_LT(run.err.find("5 tasks in the last"), run.err.find("5 done, 0 failed")) << run.describe();
}

TEST_F(ConsumeLogTest, ALogIntervalOutOfBoundsIsOneClearLine) {
    const CliRun run = consume({"--log-interval", "0.01"}, "0");
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.err.find("--log-interval"), std::string::npos) << run.describe();
    EXPECT_EQ(lines(run.err).size(), 1u) << run.describe();
}

}  // namespace
}  // namespace rowpump::test
