// Sinks against the real servers: the local Redis and MariaDB (ROWPUMP_REDIS_URL, ROWPUMP_MYSQL_URL) and
// private redis-servers that the outage tests kill and restart. Redis keys start with rp_test: and MySQL
// tables with rp_test_sink_; both carry the process id and are deleted at the end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "integration/redis_fixture.hpp"
#include "mysql/connection.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "backend/redis/redis_delayed_member.hpp"
#include "redis/connection.hpp"
#include "rowpump/error.hpp"
#include "rowpump/sink.hpp"
#include "unit/error_of.hpp"

namespace rowpump::test {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::vector<Message> numbered(const std::string& prefix, int count, int level = 0, std::int64_t due_ms = 0) {
    std::vector<Message> batch;
    batch.reserve(count);
    for (int i = 0; i < count; ++i)
        batch.push_back({R"({"tag":")" + prefix + R"(","n":)" + std::to_string(i) + "}", level, due_ms});
    return batch;
}

std::vector<std::string> payloads(const std::vector<Message>& batch) {
    std::vector<std::string> out;
    for (const auto& message : batch) out.push_back(message.payload);
    return out;
}

template <class Action>
std::string usage_error_of(Action&& action) {
    return error_of<UsageError>(std::forward<Action>(action));
}

// ---------------------------------------------------------------------------------------------- Redis sink

class RedisSinkTest : public RedisTest {
protected:
    SinkSpec spec() const {
        SinkSpec out;
        out.uri = url();
        out.queue = queue();
        return out;
    }
};

TEST_F(RedisSinkTest, RpushKeepsOrderFor10kMessages) {
    auto sink = make_sink(spec());
    const auto first = numbered("a", 10000);
    const auto second = numbered("b", 2500);
    sink->write(first);
    sink->write(second);
    auto expected = payloads(first);
    for (auto& payload : payloads(second)) expected.push_back(payload);
    EXPECT_EQ(list_items(redis(), queue()), expected);
    EXPECT_EQ(sink->ready_count(), std::optional<std::uint64_t>(12500));
    EXPECT_NE(sink->describe().find("list " + queue()), std::string::npos) << sink->describe();
}

TEST_F(RedisSinkTest, LpushSideLetsAnRpopConsumerSeeBatchOrder) {
    auto s = spec();
    s.push = PushSide::left;
    auto sink = make_sink(s);
    sink->write({{"a", 0, 0}, {"b", 0, 0}, {"c", 0, 0}});
    sink->write({{"d", 0, 0}, {"e", 0, 0}});
    EXPECT_EQ(list_items(redis(), queue()), (std::vector<std::string>{"e", "d", "c", "b", "a"}));
    for (const char* expected : {"a", "b", "c", "d", "e"}) EXPECT_EQ(redis().command({"RPOP", queue()}).text, expected);
}

TEST_F(RedisSinkTest, PriorityLevelsGoToTheirLists) {
    auto s = spec();
    s.priority_lists = {"high", "mid", "low"};
    auto sink = make_sink(s);
    std::vector<Message> batch;
    std::vector<std::vector<std::string>> expected(3);
    for (int i = 0; i < 3000; ++i) {
        const int level = (i / 7 + i / 500) % 3;  // runs of 7, shifting every 500: many groups
        batch.push_back({"m" + std::to_string(i), level, 0});
        expected[level].push_back(batch.back().payload);
    }
    sink->write(batch);
    EXPECT_EQ(list_items(redis(), queue() + ":p:high"), expected[0]);
    EXPECT_EQ(list_items(redis(), queue() + ":p:mid"), expected[1]);
    EXPECT_EQ(list_items(redis(), queue() + ":p:low"), expected[2]);
    EXPECT_EQ(redis().command({"EXISTS", queue()}).integer, 0);
    EXPECT_EQ(sink->ready_count(), std::optional<std::uint64_t>(3000));

    EXPECT_THROW(sink->write({{"x", 3, 0}}), UsageError);
    EXPECT_EQ(redis().command({"LLEN", queue() + ":p:high"}).integer, static_cast<long long>(expected[0].size()));
}

TEST_F(RedisSinkTest, DelayedMessagesSitInTheSortedSetByDueTime) {
    auto sink = make_sink(spec());
    const std::int64_t base = 1'900'000'000'000;  // a Unix time in ms, in 2030
    std::vector<Message> batch;
    std::vector<std::string> ready;
    for (int i = 0; i < 2500; ++i) {
        if (i % 3 == 0) batch.push_back({"later" + std::to_string(i), 0, base + i});
        else ready.push_back(batch.emplace_back(Message{"now" + std::to_string(i), 0, 0}).payload);
    }
    sink->write(batch);

    EXPECT_EQ(list_items(redis(), queue()), ready);
    const auto scored = redis().command({"ZRANGE", queue() + ":delayed", "0", "-1", "WITHSCORES"}).elements;
    ASSERT_EQ(scored.size(), 2 * ((2500 + 2) / 3));
    for (std::size_t k = 0; k < scored.size(); k += 2) {
        const int i = static_cast<int>(3 * (k / 2));
        EXPECT_EQ(redis::delayed_payload(scored[k].text), "later" + std::to_string(i));
        EXPECT_EQ(std::stoll(scored[k + 1].text), base + i) << scored[k].text;
    }
    EXPECT_EQ(sink->ready_count(), std::optional<std::uint64_t>(ready.size()));

    // The same payload delayed twice is two tasks, each with its own due time.
    redis().command({"DEL", queue() + ":delayed"});
    sink->write({{"twin", 0, base + 5000}, {"twin", 0, base + 9000}});
    const auto twins = redis().command({"ZRANGE", queue() + ":delayed", "0", "-1", "WITHSCORES"}).elements;
    ASSERT_EQ(twins.size(), 4u);
    EXPECT_EQ(redis::delayed_payload(twins[0].text), "twin");
    EXPECT_EQ(twins[1].text, std::to_string(base + 5000));
    EXPECT_EQ(redis::delayed_payload(twins[2].text), "twin");
    EXPECT_EQ(twins[3].text, std::to_string(base + 9000));
}

TEST_F(RedisSinkTest, KeysOfAnotherTypeAreRefusedAtStart) {
    redis().command({"SET", queue(), "someone else's string"});
    auto message = usage_error_of([&] { make_sink(spec()); });
    EXPECT_NE(message.find("key " + queue() + " is a string, expected a list: choose another --queue"),
              std::string::npos)
        << message;

    redis().command({"DEL", queue()});
    redis().command({"RPUSH", queue() + ":delayed", "x"});
    message = usage_error_of([&] { make_sink(spec()); });
    EXPECT_NE(message.find("is a list, expected a sorted set"), std::string::npos) << message;

    redis().command({"DEL", queue() + ":delayed"});
    redis().command({"HSET", queue() + ":p:low", "f", "v"});
    auto s = spec();
    s.priority_lists = {"high", "low"};
    message = usage_error_of([&] { make_sink(s); });
    EXPECT_NE(message.find(queue() + ":p:low is a hash"), std::string::npos) << message;
}

// WRONGTYPE is not an outage: it fails at once instead of being retried for the whole budget.
TEST_F(RedisSinkTest, AKeyThatChangesTypeMidRunFailsWithoutRetrying) {
    auto sink = make_sink(spec());
    redis().command({"SET", queue(), "replaced"});
    const auto start = Clock::now();
    try {
        sink->write(numbered("x", 10));
        FAIL() << "no QueueError";
    } catch (const QueueError& error) {
        EXPECT_FALSE(error.is_transient());
        EXPECT_NE(std::string(error.what()).find("WRONGTYPE"), std::string::npos) << error.what();
    }
    EXPECT_LT(Clock::now() - start, 2s);
}

// Nothing is written yet when a sink opens: a server that cannot be reached is bad input, said at once with
// its cause, not after a retry budget of warnings (outages mid-run are retried: RedisOutage below).
TEST(RedisSinkUnreachable, FailsAtOnceWithTheCauseAndARedactedMessage) {
    SinkSpec spec;
    spec.uri = "redis://:sekret@127.0.0.1:1/0";
    spec.queue = "rp_test:unreachable";
    spec.timeouts.retry_budget = std::chrono::seconds(30);
    const auto start = Clock::now();
    try {
        make_sink(spec);
        FAIL() << "no UsageError";
    } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("cannot connect to Redis at redis://:***@127.0.0.1:1/0"), std::string::npos)
            << message;
        EXPECT_NE(message.find("refused"), std::string::npos) << message;
        EXPECT_EQ(message.find("sekret"), std::string::npos) << message;
    }
    EXPECT_LT(Clock::now() - start, 5s) << "the retry budget was waited out before the cause was said";
}

// ------------------------------------------------------------------------------ Redis outages (private)

TEST(RedisOutage, BatchesWrittenWhileTheServerIsDownArriveWhenItReturns) {
    PrivateRedisServer server;
    SinkSpec spec;
    spec.uri = server.url();
    spec.queue = "rp_test:outage";
    spec.timeouts.retry_budget = std::chrono::seconds(20);
    auto sink = make_sink(spec);
    sink->write(numbered("before", 100));

    server.kill();
    std::thread restart([&] {
        std::this_thread::sleep_for(1500ms);
        server.start();
    });
    std::vector<std::string> expected;
    const auto start = Clock::now();
    for (int b = 0; b < 5; ++b) {
        const auto batch = numbered("during" + std::to_string(b), 1000);
        sink->write(batch);
        for (auto& payload : payloads(batch)) expected.push_back(payload);
    }
    restart.join();
    EXPECT_GE(Clock::now() - start, 1s) << "the first write should have waited for the restart";

    // The killed server took "before" with it (no persistence); nothing was half-sent to a dead server, so
    // every later batch arrives exactly once, in order.
    redis::Connection check(RedisOptions::from_url(server.url()));
    EXPECT_EQ(list_items(check, spec.queue), expected);
}

// Writing a big pipeline into a socket the server has closed fails with EPIPE, and raises SIGPIPE, which
// kills a process that has not ignored it (this one has not): the connection must block it.
TEST(RedisOutage, ABigWriteToADeadServerNeitherKillsTheProcessNorLosesTheBatch) {
    PrivateRedisServer server;
    SinkSpec spec;
    spec.uri = server.url();
    spec.queue = "rp_test:sigpipe";
    spec.timeouts.retry_budget = std::chrono::seconds(20);
    auto sink = make_sink(spec);
    std::vector<Message> batch;
    for (int i = 0; i < 4000; ++i) batch.push_back({std::to_string(i) + ":" + std::string(8000, 'x'), 0, 0});

    server.kill();
    std::thread restart([&] {
        std::this_thread::sleep_for(500ms);
        server.start();
    });
    sink->write(batch);
    restart.join();
    redis::Connection check(RedisOptions::from_url(server.url()));
    EXPECT_EQ(check.command({"LLEN", spec.queue}).integer, 4000);
}

TEST(RedisOutage, ServerKilledMidStreamLosesNoBatchStartedAfterTheKill) {
    PrivateRedisServer server;
    SinkSpec spec;
    spec.uri = server.url();
    spec.queue = "rp_test:midstream";
    spec.timeouts.retry_budget = std::chrono::seconds(20);
    auto sink = make_sink(spec);

    constexpr int batches = 40;
    constexpr int per_batch = 5000;
    std::atomic<int> written{0};
    Clock::time_point killed{};
    std::thread killer([&] {
        while (written.load() < 8) std::this_thread::sleep_for(1ms);
        server.kill();
        killed = Clock::now();
        std::this_thread::sleep_for(1s);
        server.start();
    });
    std::vector<Clock::time_point> started(batches);
    std::vector<std::vector<Message>> sent(batches);
    for (int b = 0; b < batches; ++b) {
        sent[b] = numbered("b" + std::to_string(b), per_batch);
        started[b] = Clock::now();
        sink->write(sent[b]);
        ++written;
    }
    killer.join();

    // Whatever the old server held died with it. A batch started after the kill can only have reached the
    // new server, and must be there in full; a retried, partly sent one may be there twice.
    redis::Connection check(RedisOptions::from_url(server.url()));
    const auto items = list_items(check, spec.queue);
    const std::multiset<std::string> present(items.begin(), items.end());
    std::size_t after_kill = 0;
    for (int b = 0; b < batches; ++b) {
        if (started[b] <= killed) continue;
        ++after_kill;
        for (const auto& message : sent[b])
            ASSERT_GE(present.count(message.payload), 1u) << "lost " << message.payload;
    }
    EXPECT_GE(after_kill, 10u) << "the writer should have kept going through the outage";
    EXPECT_GE(items.size(), after_kill * per_batch);
}

// -------------------------------------------------------------------------------- Redis connection

class RedisConnectionTest : public RedisTest {};

TEST_F(RedisConnectionTest, ErrorRepliesAreNotTransientAndKeepTheConnection) {
    redis().command({"SET", queue(), "string"});
    try {
        redis().command({"LPUSH", queue(), "x"});
        FAIL() << "no QueueError";
    } catch (const QueueError& error) {
        EXPECT_FALSE(error.is_transient());
        EXPECT_NE(std::string(error.what()).find("WRONGTYPE"), std::string::npos) << error.what();
    }
    EXPECT_TRUE(redis().connected());
    EXPECT_EQ(redis().command({"PING"}).text, "PONG");
}

TEST_F(RedisConnectionTest, APipelineReadsEveryReplyEvenAfterAnError) {
    redis().command({"SET", queue(), "string"});
    const std::string list = queue() + ":list";
    redis().append({"RPUSH", list, "a"});
    redis().append({"RPUSH", queue(), "wrong type"});
    redis().append({"RPUSH", list, "b"});
    EXPECT_THROW(redis().read_replies(3), QueueError);
    EXPECT_EQ(list_items(redis(), list), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(redis().command({"PING"}).text, "PONG");
}

TEST_F(RedisConnectionTest, ClientIdChangesOnReconnect) {
    const auto before = redis().client_id();
    EXPECT_GT(before, 0);
    redis().reconnect();
    EXPECT_NE(redis().client_id(), before);
}

TEST(RedisAuth, PasswordsAreSentAndNeverShown) {
    PrivateRedisServer server({"--requirepass", "s3cret-pw"});
    RedisOptions options = RedisOptions::from_url(server.url());

    options.password = "wrong-pw";
    try {
        redis::Connection connection(options);
        FAIL() << "a wrong password was accepted";
    } catch (const QueueError& error) {
        EXPECT_FALSE(error.is_transient());
        EXPECT_EQ(std::string(error.what()).find("wrong-pw"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("check the user and password"), std::string::npos) << error.what();
    }

    options.password = "s3cret-pw";
    EXPECT_EQ(redis::Connection(options).command({"PING"}).text, "PONG");
    options.user = "default";
    EXPECT_EQ(redis::Connection(options).command({"PING"}).text, "PONG");

    SinkSpec spec;
    spec.uri = "redis://:s3cret-pw@127.0.0.1:" + std::to_string(server.port()) + "/2";
    spec.queue = "rp_test:auth";
    auto sink = make_sink(spec);
    sink->write(numbered("x", 3));
    EXPECT_EQ(sink->ready_count(), std::optional<std::uint64_t>(3));
    EXPECT_EQ(sink->describe().find("s3cret"), std::string::npos) << sink->describe();
}

// ------------------------------------------------------------------------------------ MySQL queue sink

// Owns the test's queue tables (rp_test_sink_<base>_<pid>) and drops them at the end.
class MySqlQueueSinkTest : public ::testing::Test {
protected:
    void SetUp() override {
        const char* url = std::getenv("ROWPUMP_MYSQL_URL");
        if (!url || !*url)
            FAIL() << "ROWPUMP_MYSQL_URL is not set: integration tests need the local MariaDB. Start it and "
                      "export its address with:  bash scripts/services.sh start && eval \"$(bash "
                      "scripts/services.sh env)\"";
        url_ = url;
        try {
            admin_.emplace(MySqlOptions::from_url(url_));
        } catch (const Error& error) {
            FAIL() << "cannot connect to the local MariaDB (" << error.what() << "): is it running?";
        }
    }
    void TearDown() override {
        if (!admin_) return;
        for (const auto& table : tables_)
            admin_->execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(table));
    }

    std::string table(const std::string& base) {
        std::string name = "rp_test_sink_" + base + "_" + std::to_string(::getpid());
        admin_->execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(name));
        tables_.push_back(name);
        return name;
    }

    SinkSpec spec(const std::string& queue) const {
        SinkSpec out;
        out.uri = url_;
        out.queue = queue;
        return out;
    }

    std::vector<std::vector<std::string>> rows(const std::string& sql, const std::vector<mysql::Param>& params = {}) {
        auto result = admin_->query(sql, params);
        const auto width = result.column_count();
        std::vector<std::vector<std::string>> out;
        while (result.next()) {
            auto& row = out.emplace_back();
            for (std::size_t column = 1; column <= width; ++column)
                row.push_back(result.is_null(column) ? "NULL" : result.text(column));
        }
        return out;
    }

    mysql::Connection& admin() { return *admin_; }

private:
    std::string url_;
    std::optional<mysql::Connection> admin_;
    std::vector<std::string> tables_;
};

TEST_F(MySqlQueueSinkTest, CreatesTheQueueTableOfTheDesign) {
    const auto name = table("shape");
    auto sink = make_sink(spec(name));
    EXPECT_EQ(sink->ready_count(), std::optional<std::uint64_t>(0));
    EXPECT_NE(sink->describe().find("table `" + name + "`"), std::string::npos) << sink->describe();
    EXPECT_EQ(sink->describe().find("rowpump-local"), std::string::npos) << sink->describe();

    const auto columns = rows(
        "SELECT COLUMN_NAME, REPLACE(REPLACE(REPLACE(COLUMN_TYPE, '(20)', ''), '(11)', ''), '(4)', ''), IS_NULLABLE "
        "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
        {name});
    const std::vector<std::vector<std::string>> expected = {
        {"id", "bigint unsigned", "NO"},
        {"dedupe_key", "varbinary(255)", "YES"},
        {"priority", "tinyint", "NO"},
        {"payload", "longtext", "NO"},
        {"status", "enum('ready','claimed','done','dead')", "NO"},
        {"owner", "bigint unsigned", "NO"},
        {"attempts", "int", "NO"},
        {"crashes", "int", "NO"},
        {"version", "bigint unsigned", "NO"},
        {"available_at", "datetime(6)", "NO"},
        {"claimed_at", "datetime(6)", "YES"},
        {"created_at", "datetime(6)", "NO"},
        {"updated_at", "datetime(6)", "NO"},
        {"last_error", "text", "YES"},
    };
    EXPECT_EQ(columns, expected);

    const auto indexes = rows(
        "SELECT INDEX_NAME, NON_UNIQUE, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM "
        "information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? GROUP BY INDEX_NAME, "
        "NON_UNIQUE ORDER BY INDEX_NAME",
        {name});
    const std::vector<std::vector<std::string>> expected_indexes = {
        {"claim_order", "1", "status,priority,available_at,id"},
        {"dedupe_key", "0", "dedupe_key"},
        {"owner_status", "1", "owner,status"},
        {"PRIMARY", "0", "id"},
    };
    EXPECT_EQ(indexes, expected_indexes);
    EXPECT_EQ(rows("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
                   {name}),
              (std::vector<std::vector<std::string>>{{"InnoDB"}}));

    make_sink(spec(name));  // an existing table of the right shape is reused
    EXPECT_NO_THROW(mysql::check_queue_table(admin(), name));
}

TEST_F(MySqlQueueSinkTest, InsertsRowsWithPriorityAvailabilityAndPayload) {
    const auto name = table("rows");
    auto s = spec(name);
    s.priority_lists = {"high", "low"};
    auto sink = make_sink(s);

    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    std::vector<Message> batch;
    for (int i = 0; i < 1300; ++i) {  // more than one INSERT chunk, with every chunk size
        const int level = (i / 5) % 2;
        const std::int64_t due = i % 4 == 0 ? now_ms + 3'600'000 + i : 0;
        batch.push_back({R"({"n":)" + std::to_string(i) + R"(,"s":"naïve ☃ 'q' \"d\" \\"})", level, due});
    }
    sink->write(batch);
    sink->write({});

    const auto stored = rows("SELECT priority, payload, status, attempts, owner, "
                             "CAST(ROUND(UNIX_TIMESTAMP(available_at) * 1000) AS SIGNED), "
                             "ABS(TIMESTAMPDIFF(SECOND, available_at, NOW(6))) FROM " +
                             mysql::quote_identifier(name) + " ORDER BY id");
    ASSERT_EQ(stored.size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto& row = stored[i];
        EXPECT_EQ(row[0], std::to_string(2 - batch[i].priority_level)) << "row " << i;
        EXPECT_EQ(row[1], batch[i].payload) << "row " << i;
        EXPECT_EQ(row[2], "ready");
        EXPECT_EQ(row[3], "0");
        EXPECT_EQ(row[4], "0");
        if (batch[i].due_ms > 0) {
            EXPECT_EQ(row[5], std::to_string(batch[i].due_ms)) << "row " << i;
        } else {
            EXPECT_LE(std::stoll(row[6]), 60) << "row " << i << " is not available now";
        }
    }
    EXPECT_EQ(sink->ready_count(), std::optional<std::uint64_t>(1300));
    EXPECT_THROW(sink->write({{"{}", 2, 0}}), UsageError);
}

TEST_F(MySqlQueueSinkTest, WithoutPriorityListsEveryPriorityIsZero) {
    const auto name = table("flat");
    auto sink = make_sink(spec(name));
    sink->write({{"a", 0, 0}, {"b", 5, 0}});
    EXPECT_EQ(rows("SELECT priority, payload FROM " + mysql::quote_identifier(name) + " ORDER BY id"),
              (std::vector<std::vector<std::string>>{{"0", "a"}, {"0", "b"}}));
}

TEST_F(MySqlQueueSinkTest, ATableOfTheWrongShapeIsRefused) {
    const auto name = table("bad");
    admin().execute_text("CREATE TABLE " + mysql::quote_identifier(name) +
                         " (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, priority VARCHAR(10), payload TEXT)");
    const auto message = usage_error_of([&] { make_sink(spec(name)); });
    EXPECT_NE(message.find("queue table `" + name + "` has the wrong shape: "), std::string::npos) << message;
    EXPECT_NE(message.find("column `status` is missing"), std::string::npos) << message;
    EXPECT_NE(message.find("column `priority` is varchar(10), expected tinyint"), std::string::npos) << message;
    EXPECT_NE(message.find("; choose another --queue or drop the table"), std::string::npos) << message;
}

TEST_F(MySqlQueueSinkTest, ANonInnoDbTableIsRefused) {
    const auto name = table("myisam");
    std::string ddl = mysql::queue_table_ddl(name);
    ddl.replace(ddl.find("ENGINE=InnoDB"), 13, "ENGINE=MyISAM");
    admin().execute_text(ddl);
    const auto message = usage_error_of([&] { make_sink(spec(name)); });
    EXPECT_NE(message.find("expected an InnoDB table"), std::string::npos) << message;
}

TEST_F(MySqlQueueSinkTest, CheckingAMissingTableSaysSo) {
    const auto name = table("missing");
    const auto message = usage_error_of([&] { mysql::check_queue_table(admin(), name); });
    EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST(MySqlQueueSinkUnreachable, IsAQueueError) {
    SinkSpec spec;
    spec.uri = "mysql://rowpump:sekret@127.0.0.1:1/rowpump";
    spec.queue = "rp_test_sink_unreachable";
    const std::string message = error_of<QueueError>([&] { make_sink(spec); });
    EXPECT_EQ(message.find("sekret"), std::string::npos) << message;
}

}  // namespace
}  // namespace rowpump::test
