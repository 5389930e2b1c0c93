// The queue commands retry an unreachable server within --retry-budget and wait for a silent one at most
// --read-timeout / --write-timeout, which their --help states with their defaults, the same for MySQL and
// Redis (Redis's budget used to be a hard-coded 30 s). A frozen Redis ends `queue consume` within them,
// and a SIGTERM ends it within about a second.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "fault/freezing_proxy.hpp"
#include "integration/cli_process.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/redis_fixture.hpp"

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
        // One budget and one pair of timeouts for MySQL and Redis alike.
        EXPECT_NE(run.out.find("before the command fails (default 60)"), std::string::npos)
            << command << "\n" << run.describe();
        for (const char* flag : {"--read-timeout", "--write-timeout"})
            EXPECT_NE(run.out.find(flag), std::string::npos) << command << " " << flag << "\n" << run.describe();
    }
}

// A Redis that stops answering (frozen, not down) under `queue consume`: the relay (freezing_proxy.hpp)
// freezes while the consumer waits for tasks.
class FrozenRedisConsumerTest : public Prepared<RedisTest> {
protected:
    void prepare() override {
        ASSERT_TRUE(options_.socket.empty()) << "the relay needs Redis on TCP";
        proxy_ = std::make_unique<FreezingProxy>(options_.host, options_.port);
    }
    void TearDown() override {
        proxy_.reset();
        RedisTest::TearDown();
    }
    // Starts a consumer through the relay, lets it run one task, then freezes the relay.
    std::unique_ptr<CliProcess> consume_then_freeze(std::vector<std::string> extra) {
        connection_->command({"RPUSH", queue_, "first"});
        std::vector<std::string> args{"queue", "consume", "--source",
                                      "redis://127.0.0.1:" + std::to_string(proxy_->port()) + "/0", "--queue", queue_,
                                      "--exec", "cat > /dev/null"};
        args.insert(args.end(), extra.begin(), extra.end());
        auto consumer = std::make_unique<CliProcess>(args);
        const bool ran = wait_until([&] { return connection_->command({"LLEN", queue_}).integer == 0 &&
                                                 processing_tasks(*connection_, queue_) == 0; }, 20s);
        EXPECT_TRUE(ran && !consumer->poll()) << consumer->describe();
        proxy_->freeze();
        return consumer;
    }

    std::unique_ptr<FreezingProxy> proxy_;
};

TEST_F(FrozenRedisConsumerTest, AFrozenRedisEndsTheConsumerWithinItsReadTimeoutAndRetryBudget) {
    auto consumer = consume_then_freeze({"--read-timeout", "1", "--retry-budget", "3"});
    const auto frozen_at = std::chrono::steady_clock::now();
    const auto ended = consumer->wait_for(30s);
    const auto took = std::chrono::steady_clock::now() - frozen_at;
    ASSERT_TRUE(ended) << "still consuming 30 s after Redis froze\n" << consumer->describe();
    EXPECT_EQ(*ended, 1) << consumer->describe();
    EXPECT_GE(took, 3s) << consumer->describe();
    EXPECT_LT(took, 12s) << consumer->describe();
    const auto err = lines(consumer->err());
    ASSERT_FALSE(err.empty()) << consumer->describe();
    EXPECT_NE(err.back().find("rowpump: error: "), std::string::npos) << consumer->describe();
    EXPECT_NE(err.back().find("unreachable for 3 s (--retry-budget)"), std::string::npos) << consumer->describe();
}

TEST_F(FrozenRedisConsumerTest, SigtermEndsAConsumerWaitingOnAFrozenRedisWithinAboutASecond) {
    auto consumer = consume_then_freeze({});  // default timeouts: 30 s, 60 s
    ASSERT_TRUE(wait_until([&] { return proxy_->client_waiting() || consumer->poll().has_value(); }, 10s));
    ASSERT_FALSE(consumer->poll()) << consumer->describe();
    consumer->signal(SIGTERM);
    const auto stopped_at = std::chrono::steady_clock::now();
    const auto ended = consumer->wait_for(20s);
    ASSERT_TRUE(ended) << "SIGTERM did not end a consumer blocked on a frozen Redis\n" << consumer->describe();
    EXPECT_LT(std::chrono::steady_clock::now() - stopped_at, 4s) << consumer->describe();
    EXPECT_EQ(*ended, 3) << consumer->describe();
    const auto err = lines(consumer->err());
    ASSERT_FALSE(err.empty()) << consumer->describe();
    EXPECT_NE(err.back().find("stopped by a signal"), std::string::npos) << consumer->describe();
}

}  // namespace
}  // namespace rowpump::test
