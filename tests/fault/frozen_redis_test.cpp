// A Redis server that stops answering mid-run (frozen, not down: SIGSTOP, a hung host) must end a
// backfill with a job id within --read-timeout plus --retry-budget, with one clear line, and the job must
// then resume exactly once. It used to hang for good: the job store's connections had no timeout at all,
// and a SIGTERM did not end the run either, which it now does within about a second. Redis is frozen
// through a relay (freezing_proxy.hpp), so the Redis the other tests share keeps running; thawing the
// relay is the SIGCONT. Table rp_test_frozen_redis_*, keys rp_test:* and the job's state; all removed.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "backend/redis/redis_queue_keys.hpp"
#include "fault/freezing_proxy.hpp"
#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/queue_contents.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int table_rows = 20'000;

std::vector<std::string> error_lines(const std::string& err) {
    std::vector<std::string> found;
    for (const std::string& line : lines(err))
        if (line.starts_with("rowpump: error: ")) found.push_back(line);
    return found;
}

class FrozenRedisTest : public Prepared<MySqlRedisTest> {
protected:
    std::optional<SourceTable> source_table() const override {
        return sha1_rows_table("frozen_redis", table_rows, "VARCHAR(40) NOT NULL");
    }
    void prepare() override {
        const RedisOptions target = RedisOptions::from_url(redis_url_);
        ASSERT_TRUE(target.socket.empty()) << "the relay needs Redis on TCP";
        proxy_ = std::make_unique<FreezingProxy>(target.host, target.port);
    }
    void TearDown() override {
        proxy_.reset();
        MySqlRedisTest::TearDown();
    }

    // A job-id backfill into the test's list through the relay; every connection to Redis (sink, job
    // store, probe) goes through it. The rate cap keeps the run going while the test freezes it.
    std::vector<std::string> backfill(std::vector<std::string> extra) const {
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_for_command_line(), "--table", table_,
                                      "--sink", "redis://127.0.0.1:" + std::to_string(proxy_->port()) + "/0",
                                      "--queue", queue_, "--job-id", job_id_, "--partitions", "2", "--workers", "2",
                                      "--page-size", "100", "--page-time-ms", "0", "--rate", "3000"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    // Starts `args`, freezes the relay once 500 rows are in the list, and returns the process.
    std::unique_ptr<CliProcess> run_until_frozen(const std::vector<std::string>& args) {
        auto run = std::make_unique<CliProcess>(args);
        const bool started = wait_until(
            [&] { return redis_->command({"LLEN", queue_}).integer >= 500 || run->poll().has_value(); }, 30s);
        EXPECT_TRUE(started && !run->poll()) << run->describe();
        proxy_->freeze();
        return run;
    }

    // Ranges whose owner is a Redis client that is still connected: the frozen run's, until the thawed
    // relay has passed on its last bytes and closed its side.
    int live_leases() {
        const auto ranges = redis_->command({"HGET", redis::job_meta(redis::default_state_prefix, job_id_), "ranges"});
        if (ranges.is_nil()) return 0;
        int live = 0;
        for (int i = 0; i < std::stoi(ranges.text); ++i) {
            const auto fields = redis_->command(
                {"HMGET", redis::job_range(redis::default_state_prefix, job_id_, static_cast<std::size_t>(i)), "status", "owner"});
            const std::string& owner = fields.elements.at(1).text;
            if (fields.elements.at(0).text != "pending" || owner.empty() || owner == "0") continue;
            if (!redis_->command({"CLIENT", "LIST", "ID", owner}).text.empty()) ++live;
        }
        return live;
    }

    // Thaws the relay (SIGCONT), waits for the frozen run's sessions to end, resumes the job and checks
    // that every row of the table is in the list exactly once.
    void expect_resume_exactly_once(const std::vector<std::string>& args) {
        proxy_->thaw();
        ASSERT_TRUE(wait_until([&] { return live_leases() == 0; }, 20s)) << "the frozen run's sessions never ended";
        std::vector<std::string> resume = args;
        resume.push_back("--resume");
        const CliRun resumed = run_rowpump(resume);
        ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
        std::vector<std::string> expected;
        for (int id = 1; id <= table_rows; ++id) expected.push_back(std::to_string(id));
        EXPECT_EQ(multiset_difference(payload_keys(list_items(*redis_, queue_), {"id"}), expected), "");
    }

    std::unique_ptr<FreezingProxy> proxy_;
};

TEST_F(FrozenRedisTest, AFrozenJobStoreEndsTheRunWithinItsTimeoutsWithOneLineThenResumesExactlyOnce) {
    const auto args = backfill({"--read-timeout", "1", "--retry-budget", "3"});
    auto run = run_until_frozen(args);
    const auto frozen_at = Clock::now();
    const auto ended = run->wait_for(30s);
    const double seconds = std::chrono::duration<double>(Clock::now() - frozen_at).count();
    ASSERT_TRUE(ended) << "still running 30 s after Redis froze\n" << run->describe();
    EXPECT_EQ(*ended, 1) << run->describe();
    // 1 s for the read that waits, then 3 s of retries whose reconnects each wait up to 1 s more.
    EXPECT_GE(seconds, 3.0) << "gave up before the retry budget was spent\n" << run->describe();
    EXPECT_LT(seconds, 12.0) << "took far longer than --read-timeout 1 plus --retry-budget 3\n" << run->describe();
    const auto errors = error_lines(run->err());
    ASSERT_EQ(errors.size(), 1u) << run->describe();
    EXPECT_EQ(errors.front(), lines(run->err()).back()) << "the error is the last line\n" << run->describe();
    EXPECT_NE(errors.front().find("unreachable for 3 s (--retry-budget)"), std::string::npos) << errors.front();
    EXPECT_NE(errors.front().find("did not answer within 1 s"), std::string::npos) << errors.front();
    EXPECT_NE(errors.front().find("127.0.0.1:" + std::to_string(proxy_->port())), std::string::npos) << errors.front();
    expect_resume_exactly_once(args);
}

TEST_F(FrozenRedisTest, SigtermEndsARunWaitingOnAFrozenRedisWithinAboutASecondThenItResumesExactlyOnce) {
    // The default timeouts (30 s, 60 s): only the signal can end the run soon.
    const auto args = backfill({});
    auto run = run_until_frozen(args);
    ASSERT_TRUE(wait_until([&] { return proxy_->client_waiting() || run->poll().has_value(); }, 10s));
    ASSERT_FALSE(run->poll()) << run->describe();
    run->signal(SIGTERM);
    const auto stopped_at = Clock::now();
    const auto ended = run->wait_for(20s);
    const double seconds = std::chrono::duration<double>(Clock::now() - stopped_at).count();
    ASSERT_TRUE(ended) << "SIGTERM did not end a run blocked on a frozen Redis\n" << run->describe();
    EXPECT_EQ(*ended, 3) << "interrupted, resumable\n" << run->describe();
    EXPECT_LT(seconds, 4.0) << run->describe();
    const auto errors = error_lines(run->err());
    ASSERT_EQ(errors.size(), 1u) << run->describe();
    EXPECT_NE(errors.front().find("stopped by a signal"), std::string::npos) << errors.front();
    expect_resume_exactly_once(args);
}

}  // namespace
}  // namespace rowpump::test
