// Redis names that fit existing consumers, end to end (docs/payloads-and-names.md): the queue commands
// find what backfill wrote under --list-key, --delayed-key and --delay-score; a consumer's retry is
// scored in the set's unit; and --state-prefix lets an account that ACLs allow only one key prefix keep
// a job's state.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/redis_fixture.hpp"
#include "rowpump/enqueue.hpp"
#include "rowpump/queue.hpp"
#include "unit/goods_names.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

class RedisNamesCliTest : public MySqlTest {
protected:
    std::optional<SourceTable> source_table() const override {
        std::string values;
        for (int id = 1; id <= 30; ++id) values += (id > 1 ? "," : "") + ("(" + std::to_string(id) + "," + std::to_string(id * 10) + ")");
        return SourceTable{"goods", "(id INT PRIMARY KEY, amount INT NOT NULL)", "INSERT INTO {t} VALUES " + values};
    }

    CliRun backfill(const std::string& sink, std::vector<std::string> flags, const EnvOverride& env = {}) {
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", sink, "--workers", "1"};
        args.insert(args.end(), flags.begin(), flags.end());
        return run_rowpump(args, env);
    }
    CliRun queue(const std::string& subcommand, std::vector<std::string> flags) {
        std::vector<std::string> args{"queue", subcommand, "--source", redis_.url(), "--queue", "goods"};
        args.insert(args.end(), flags.begin(), flags.end());
        return run_rowpump(args);
    }

    PrivateRedisServer redis_;
};

TEST_F(RedisNamesCliTest, QueueCommandsFindWhatBackfillNamed) {
    const std::vector<std::string> lists{"--priority-lists", "high,mid,low", "--list-key", "goods:{level}:task"};
    const std::vector<std::string> delayed{"--delayed-key", "goods:delay", "--delay-score", "s"};
    auto run = backfill(redis_.url(), {"--queue", "goods", "--priority-column", "amount", "--priority",
                                       "high:201,mid:101,low", "--list-key", "goods:{level}:task"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    run = backfill(redis_.url(), {"--queue", "goods", "--delay", "0.3", "--delayed-key", "goods:delay", "--delay-score", "s"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();

    std::vector<std::string> flags = lists;
    flags.insert(flags.end(), delayed.begin(), delayed.end());
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.end(), flags.begin(), flags.end());
        return more;
    };
    run = queue("stats", with({"--json"}));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_NE(run.out.find("\"ready\": 30"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\"delayed\": 30"), std::string::npos) << run.out;
    run = queue("promote", with({}));
    EXPECT_EQ(run.out, "promoted 0\n") << "due in 0.3 s, not yet: seconds are compared as seconds";
    std::this_thread::sleep_for(1s);
    run = queue("promote", with({}));
    EXPECT_EQ(run.out, "promoted 30\n") << run.describe();
    run = queue("consume", with({"--until-empty", "--exec", "cat > /dev/null"}));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    run = queue("stats", with({"--json"}));
    EXPECT_NE(run.out.find("\"ready\": 0"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\"delayed\": 0"), std::string::npos) << run.out;
}

TEST_F(RedisNamesCliTest, ARetryIsScoredInTheSetsUnit) {
    RedisQueueOptions options;
    options.queue = "goods";
    options.delayed_key = "goods:delay";
    options.delay_score = DelayScore::seconds;
    options.retry.backoff_base = 10s;
    options.retry.jitter = 0;
    RedisQueue consumer(RedisOptions::from_url(redis_.url()), options);
    redis::Connection redis(RedisOptions::from_url(redis_.url()));
    redis.command({"RPUSH", "goods", "task"});
    const auto tasks = consumer.claim(1);
    ASSERT_EQ(tasks.size(), 1u);
    ASSERT_EQ(consumer.fail(tasks[0], "once"), FailOutcome::retried);
    const double now = std::stod(redis.command({"TIME"}).elements.at(0).text);
    const double score = std::stod(redis.command({"ZRANGE", "goods:delay", "0", "0", "WITHSCORES"}).elements.at(1).text);
    EXPECT_NEAR(score, now + 10, 2) << "seconds, 10 s ahead";
    const Backlog backlog = consumer.backlog();
    EXPECT_EQ(backlog.waiting, 1u) << "the retry";
    EXPECT_GT(backlog.next_due, 8s) << "in ms, from a score in s";
    EXPECT_LE(backlog.next_due, 10s);
}

TEST_F(RedisNamesCliTest, BulkEnqueuerWritesUnderTheSameNames) {
    SinkSpec spec = goods_names("goods");
    spec.uri = redis_.url();
    BulkEnqueuer enqueuer(spec);
    enqueuer.push(Message{"a", 0, 0});
    enqueuer.push(Message{"b", 1, 0});
    enqueuer.push(Message{"c", 0, 4102444800500});
    enqueuer.flush();
    redis::Connection redis(RedisOptions::from_url(redis_.url()));
    EXPECT_EQ(list_items(redis, "goods:high:task"), std::vector<std::string>{"a"});
    EXPECT_EQ(list_items(redis, "goods:low:task"), std::vector<std::string>{"b"});
    const auto scored = redis.command({"ZRANGE", "goods:delay", "0", "-1", "WITHSCORES"}).elements;
    ASSERT_EQ(scored.size(), 2u);
    EXPECT_EQ(scored[0].text, "c");
    EXPECT_EQ(scored[1].text, "4102444800.5");
}

TEST_F(RedisNamesCliTest, StatePrefixLetsAPrefixRestrictedAccountUseAJobId) {
    redis::Connection admin(RedisOptions::from_url(redis_.url()));
    admin.command({"ACL", "SETUSER", "app", "on", ">rp_test_secret", "~app:*", "+@all"});
    const std::string sink = "redis://app@127.0.0.1:" + std::to_string(redis_.port()) + "/0";
    const EnvOverride password{{"ROWPUMP_REDIS_PASSWORD", "rp_test_secret"}};
    const std::vector<std::string> job{"--queue", "app:goods", "--job-id", "j1"};

    auto run = backfill(sink, job, password);
    EXPECT_NE(run.exit_code, 0) << "rowpump:job:j1:* is outside the account's keys\n" << run.describe();
    std::vector<std::string> prefixed = job;
    prefixed.insert(prefixed.end(), {"--state-prefix", "app:job:"});
    run = backfill(sink, prefixed, password);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(admin.command({"LLEN", "app:goods"}).integer, 30);
    EXPECT_EQ(admin.command({"HGET", "app:job:j1:meta", "ranges"}).text, "1");
    EXPECT_EQ(admin.command({"EXISTS", "rowpump:job:j1:meta"}).integer, 0);
    run = backfill(sink, prefixed, password);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(admin.command({"LLEN", "app:goods"}).integer, 30) << "the finished job was found under its prefix";

    prefixed.back() = "app job:";
    run = backfill(sink, prefixed, password);
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_NE(run.err.find("state prefix 'app job:' holds a space"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace rowpump::test
