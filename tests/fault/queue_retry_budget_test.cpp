// The queue commands retry an unreachable server within --retry-budget, which their --help states with its
// defaults; Redis's used to be a hard-coded 30 s that no flag could change.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "integration/cli_process.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

TEST(QueueRetryBudget, AnUnreachableRedisIsRetriedForTheBudgetGivenThenOneClearError) {
    const auto started = std::chrono::steady_clock::now();
    const CliRun run = run_rowpump(
        {"queue", "stats", "--source", "redis://127.0.0.1:1/0", "--queue", "rp_test:budget", "--retry-budget", "2"});
    const auto took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    EXPECT_NE(run.err.find("unreachable for 2 s"), std::string::npos) << run.describe();
    EXPECT_GE(took, 2s) << "gave up before the budget was spent\n" << run.describe();
    EXPECT_LT(took, 15s) << "the budget given was not the one used\n" << run.describe();
}

TEST(QueueRetryBudget, EveryQueueCommandsHelpStatesTheBudgetAndItsDefaults) {
    for (const char* command : {"init", "stats", "consume", "reap", "promote", "purge", "requeue-dead"}) {
        const CliRun run = run_rowpump({"queue", command, "--help"});
        EXPECT_EQ(run.exit_code, 0) << command << "\n" << run.describe();
        EXPECT_NE(run.out.find("--retry-budget"), std::string::npos) << command << "\n" << run.describe();
        EXPECT_NE(run.out.find("(default 60 for a MySQL queue table, 30 for Redis)"), std::string::npos)
            << command << "\n" << run.describe();
    }
}

}  // namespace
}  // namespace rowpump::test
