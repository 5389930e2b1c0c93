// `rowpump queue consume --until-empty` drains the queue: a task that fails once waits out its backoff
// and runs again before the consumer exits, for the MySQL queue table and for Redis; tasks delayed by
// their producer and not due for an hour are left and counted, without waiting for them; tasks that went
// dead on the way give exit status 4 and a count on the last line (they used to exit 0). Below the CLI,
// each queue's backlog says what a draining consumer must still wait for, claims of other consumers too.
// Tables rp_test_*, keys rp_test:*; all removed at the end.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "rowpump/queue.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Fails the task's first attempt, then appends its payload to `outbox` as a line.
std::string fail_once_then_record(const std::string& outbox) {
    return "test \"$ROWPUMP_TASK_ATTEMPT\" -ge 2 || { echo 'first attempt fails' >&2; exit 1; }; "
           "{ cat; echo; } >> '" + outbox + "'";
}

// `queue stats --json` as a document; fails the test when the command does.
rapidjson::Document stats_of(const std::vector<std::string>& source_and_queue) {
    std::vector<std::string> args{"queue", "stats", "--json"};
    args.insert(args.end(), source_and_queue.begin(), source_and_queue.end());
    const CliRun run = run_rowpump(args);
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    rapidjson::Document stats;
    stats.Parse(run.out.c_str());
    EXPECT_FALSE(stats.HasParseError()) << run.out;
    if (stats.HasParseError()) stats.SetObject();
    return stats;
}

std::uint64_t field(const rapidjson::Document& stats, const char* name) {
    const auto found = stats.FindMember(name);
    if (found == stats.MemberEnd() || !found->value.IsUint64()) {
        ADD_FAILURE() << "stats have no count " << name;
        return 999;
    }
    return found->value.GetUint64();
}

// After the due task is done: the retry, due in 10 s, waits; the task an hour away is later.
void expect_only_the_retry_waits(const Backlog& backlog) {
    EXPECT_EQ(backlog.waiting, 1u) << "the retry";
    EXPECT_GT(backlog.next_due, 9s);
    EXPECT_LE(backlog.next_due, 10s);
    EXPECT_EQ(backlog.later, 1u);
}

class ConsumeUntilEmptyTest : public MySqlRedisTest {
protected:
    void TearDown() override {
        std::remove(outbox_.c_str());
        MySqlRedisTest::TearDown();
    }

    // `queue consume --until-empty` of a queue whose one task, task-1, fails once: the run waits out the
    // retry's backoff and ends with the task done. The queue's stats afterwards.
    rapidjson::Document consume_a_task_that_fails_once(const std::string& source, const std::string& queue) {
        const auto started = Clock::now();
        const CliRun consume = run_rowpump({"queue", "consume", "--source", source, "--queue", queue, "--exec",
                                            fail_once_then_record(outbox_), "--backoff", "1", "--max-attempts", "3",
                                            "--until-empty"});
        EXPECT_EQ(consume.exit_code, 0) << consume.describe();
        EXPECT_EQ(file_lines(outbox_), std::vector<std::string>{"task-1"}) << "the retry never ran\n"
                                                                            << consume.describe();
        EXPECT_GE(Clock::now() - started, 400ms) << "the retry cannot have waited out its backoff (0.5 to 1 s)";
        return stats_of({"--source", source, "--queue", queue});
    }

    // An empty MySQL queue table of the producer's own DDL; the fixture names it (rp_test_<base>_<pid>)
    // and drops it.
    std::string queue_table(const std::string& base) {
        const std::string ddl = mysql::queue_table_ddl("unnamed");
        return tables().create(base, ddl.substr(ddl.find('(')));
    }

    std::int64_t unix_ms(std::chrono::system_clock::duration from_now) const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   (std::chrono::system_clock::now() + from_now).time_since_epoch())
            .count();
    }

    std::string outbox_ = fresh_temp_path("until_empty_outbox");
};

TEST_F(ConsumeUntilEmptyTest, RedisBacklogHasReadyDueAndRetryingTasksAndCountsTheLaterOnes) {
    RedisQueueOptions queue_options;
    queue_options.queue = queue_;
    queue_options.retry.backoff_base = 10s;
    queue_options.retry.jitter = 0;
    RedisQueue queue(RedisOptions::from_url(redis_url_), queue_options);
    redis_->command({"RPUSH", queue_, "retry"});
    const auto failing = queue.claim(1);
    ASSERT_EQ(failing.size(), 1u);
    ASSERT_EQ(queue.fail(failing[0], "once"), FailOutcome::retried);
    SinkSpec spec;
    spec.uri = redis_url_;
    spec.queue = queue_;
    make_sink(spec)->write({{"ready", 0, 0}, {"due", 0, unix_ms(-1s)}, {"later", 0, unix_ms(1h)}});

    Backlog backlog = queue.backlog();
    EXPECT_EQ(backlog.waiting, 3u) << "ready, due and retry";
    EXPECT_EQ(backlog.next_due, 0ms);
    EXPECT_EQ(backlog.later, 1u);

    for (int i = 0; i < 2; ++i) {
        queue.promote();
        const auto tasks = queue.claim(1);
        ASSERT_EQ(tasks.size(), 1u);
        queue.ack(tasks[0]);
    }
    expect_only_the_retry_waits(queue.backlog());
}

TEST_F(ConsumeUntilEmptyTest, MySqlBacklogHasDueAndRetryingTasksAndCountsTheLaterOnes) {
    const std::string table = queue_table("until_empty_b");
    tables().execute(table, "INSERT INTO {t} (payload, attempts, available_at) VALUES ('ready', 0, NOW(6)), "
                            "('retry', 1, NOW(6) + INTERVAL 10 SECOND), ('later', 0, NOW(6) + INTERVAL 1 HOUR)");
    MySqlQueueOptions queue_options;
    queue_options.table = table;
    MySqlQueue queue(options(), queue_options);

    Backlog backlog = queue.backlog();
    EXPECT_EQ(backlog.waiting, 2u) << "ready and retry";
    EXPECT_EQ(backlog.next_due, 0ms);
    EXPECT_EQ(backlog.later, 1u);

    tables().execute(table, "UPDATE {t} SET status = 'done' WHERE payload = 'ready'");
    expect_only_the_retry_waits(queue.backlog());
}

TEST_F(ConsumeUntilEmptyTest, RedisWaitsForAFailedTaskToComeBackAndEndsWithItDone) {
    redis_->command({"RPUSH", queue_, "task-1"});
    const auto stats = consume_a_task_that_fails_once(redis_url_, queue_);
    EXPECT_EQ(field(stats, "ready"), 0u);
    EXPECT_EQ(field(stats, "delayed"), 0u);
    EXPECT_EQ(field(stats, "processing"), 0u);
    EXPECT_EQ(field(stats, "dead"), 0u);
}

TEST_F(ConsumeUntilEmptyTest, MySqlWaitsForAFailedTaskToComeBackAndEndsWithItDone) {
    const std::string table = queue_table("until_empty_q");
    tables().execute(table, "INSERT INTO {t} (payload, available_at) VALUES ('task-1', NOW(6))");
    const auto stats = consume_a_task_that_fails_once(mysql_url_, table);
    EXPECT_EQ(field(stats, "ready"), 0u);
    EXPECT_EQ(field(stats, "claimed"), 0u);
    EXPECT_EQ(field(stats, "done"), 1u);
    EXPECT_EQ(field(stats, "dead"), 0u);
}

// One of two tasks always fails, with one attempt allowed: the drain ends, and says so.
void expect_exit_4_and_one_dead_on_the_last_line(const std::string& source, const std::string& queue) {
    const CliRun consume = run_rowpump({"queue", "consume", "--source", source, "--queue", queue, "--exec",
                                        "test \"$(cat)\" = good", "--max-attempts", "1", "--until-empty"});
    EXPECT_EQ(consume.exit_code, 4) << consume.describe();
    const auto err = lines(consume.err);
    ASSERT_FALSE(err.empty()) << consume.describe();
    for (const char* expected : {"1 done", "1 dead", "exit status 4"})
        EXPECT_NE(err.back().find(expected), std::string::npos) << expected << "\n" << consume.describe();
}

TEST_F(ConsumeUntilEmptyTest, RedisTasksThatWentDeadGiveExitStatus4AndACountOnTheLastLine) {
    redis_->command({"RPUSH", queue_, "good", "bad"});
    expect_exit_4_and_one_dead_on_the_last_line(redis_url_, queue_);
    EXPECT_EQ(redis_->command({"LLEN", redis::dead_list(queue_)}).integer, 1);
}

TEST_F(ConsumeUntilEmptyTest, MySqlTasksThatWentDeadGiveExitStatus4AndACountOnTheLastLine) {
    const std::string table = queue_table("until_empty_d");
    tables().execute(table, "INSERT INTO {t} (payload, available_at) VALUES ('good', NOW(6)), ('bad', NOW(6))");
    expect_exit_4_and_one_dead_on_the_last_line(mysql_url_, table);
    const auto stats = stats_of({"--source", mysql_url_, "--queue", table});
    EXPECT_EQ(field(stats, "done"), 1u);
    EXPECT_EQ(field(stats, "dead"), 1u);
}

// A claim whose owner's connection is gone (KILLed) is held and orphaned; one of a live connection is held.
TEST_F(ConsumeUntilEmptyTest, MySqlBacklogCountsClaimsOtherConsumersHoldAndThoseWhoseOwnerIsGone) {
    const std::string table = queue_table("until_empty_h");
    tables().execute(table, "INSERT INTO {t} (payload, available_at) VALUES ('a', NOW(6)), ('b', NOW(6))");
    MySqlQueueOptions queue_options;
    queue_options.table = table;
    queue_options.claim_mode = ClaimMode::update_then_select;  // committed claims, as a consumer holds them
    MySqlQueue live(options(), queue_options);
    MySqlQueue gone(options(), queue_options);
    ASSERT_EQ(live.claim(1).size(), 1u);
    ASSERT_EQ(gone.claim(1).size(), 1u);
    tables().execute(table, "KILL CONNECTION " + std::to_string(gone.owner_id()));
    MySqlQueue drainer(options(), queue_options);
    ASSERT_TRUE(wait_until([&] { return drainer.backlog().orphaned == 1; }, 5s)) << "the KILLed session never went";
    const Backlog backlog = drainer.backlog();
    EXPECT_EQ(backlog.waiting, 0u);
    EXPECT_EQ(backlog.held, 2u);
    const ReapResult reaped = drainer.reap(std::chrono::minutes(5));
    EXPECT_EQ(reaped.released, 1u) << "only the claim whose owner is gone comes back";
    EXPECT_EQ(drainer.backlog().waiting, 1u);
}

// A task whose claim is taken back once too often (--max-crashes 1) is dead too, whichever reaps it.
TEST_F(ConsumeUntilEmptyTest, MySqlATaskWhoseConsumerDiedOnceTooOftenCountsAsDead) {
    const std::string table = queue_table("until_empty_k");
    tables().execute(table, "INSERT INTO {t} (payload, available_at) VALUES ('good', NOW(6)), ('lost', NOW(6))");
    MySqlQueueOptions queue_options;
    queue_options.table = table;
    queue_options.claim_mode = ClaimMode::update_then_select;
    MySqlQueue gone(options(), queue_options);
    ASSERT_EQ(gone.claim(1).size(), 1u);
    tables().execute(table, "KILL CONNECTION " + std::to_string(gone.owner_id()));
    const CliRun consume = run_rowpump({"queue", "consume", "--source", mysql_url_, "--queue", table, "--exec",
                                        "cat > /dev/null", "--max-crashes", "1", "--until-empty"});
    EXPECT_EQ(consume.exit_code, 4) << consume.describe();
    ASSERT_FALSE(lines(consume.err).empty()) << consume.describe();
    EXPECT_NE(lines(consume.err).back().find("1 done, 0 failed and retried later, 1 dead"), std::string::npos)
        << consume.describe();
}

TEST_F(ConsumeUntilEmptyTest, TasksDelayedByTheirProducerAreLeftAndCounted) {
    SinkSpec spec;
    spec.uri = redis_url_;
    spec.queue = queue_;
    const auto hour_later = std::chrono::system_clock::now() + 1h;
    const std::int64_t in_an_hour =
        std::chrono::duration_cast<std::chrono::milliseconds>(hour_later.time_since_epoch()).count();
    make_sink(spec)->write({{"now", 0, 0}, {"later", 0, in_an_hour}, {"later", 0, in_an_hour}});

    const auto started = Clock::now();
    const CliRun consume = run_rowpump({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                                        "{ cat; echo; } >> '" + outbox_ + "'", "--until-empty"});
    EXPECT_EQ(consume.exit_code, 0) << consume.describe();
    EXPECT_LT(Clock::now() - started, 10s) << "waited for tasks due in an hour";
    EXPECT_EQ(file_lines(outbox_), std::vector<std::string>{"now"});
    EXPECT_NE(consume.err.find("2 delayed task(s) are not due yet and stay in the queue"), std::string::npos)
        << consume.describe();
    EXPECT_EQ(redis_->command({"ZCARD", redis::delayed_set(queue_)}).integer, 2);
}

}  // namespace
}  // namespace rowpump::test
