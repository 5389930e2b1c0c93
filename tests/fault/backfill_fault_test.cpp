// run_job while things break underneath it (docs/DESIGN.md, "Delivery guarantees"):
//  - the reader's MySQL connection is killed mid-range, in the middle of a page query and while idle:
//    the reader reconnects and resumes after the last key it delivered, so a Redis queue gets every row
//    exactly once; when the MySQL queue sink's connection is killed too, no row is lost (at-least-once).
//  - Redis dies and comes back (AOF with fsync always, so what it acknowledged survives): no row is lost,
//    and with a job id every row is there exactly once; an idle timeout on the job store's connection too.
//  - Redis stays down for longer than the sink's retry budget: run_job throws a QueueError saying so.
//
// Connections to kill are found by their query text, which names this process's own tables: the table is
// write-locked so the next query waits in plain sight in the process list. Other tests' connections of the
// same MySQL user are never touched.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "integration/redis_fixture.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::vector<std::string> distinct(std::vector<std::string> values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

// Waits until `count()` (rows in the queue) reaches `at_least`, so a fault hits a job that is really
// running and not one still planning on a slow machine.
template <class Count>
void wait_for_rows(Count&& count, long long at_least = 100) {
    const auto deadline = Clock::now() + 30s;
    while (count() < at_least) {
        if (Clock::now() > deadline) {
            ADD_FAILURE() << "the job wrote fewer than " << at_least << " rows in 30 s";
            return;
        }
        std::this_thread::sleep_for(10ms);
    }
}

class BackfillFaultTest : public Prepared<MySqlRedisTest> {
protected:
    // A job of `table` into the list rp_test:<name>:<pid> of a private Redis, 2 workers.
    JobSpec private_redis_job(const std::string& table, const PrivateRedisServer& server, const std::string& name) const {
        JobSpec spec = redis_job(table);
        spec.workers = 2;
        spec.sink.uri = server.url();
        spec.sink.queue = "rp_test:" + name + ":" + std::to_string(::getpid());
        return spec;
    }

    void prepare() override {
        watcher_.emplace(options());
    }

    void TearDown() override {
        watcher_.reset();
        MySqlRedisTest::TearDown();
    }

    std::string numbered_table(const std::string& base, int rows) {
        const auto table = tables().create(base, "(id BIGINT PRIMARY KEY, v VARCHAR(40) NOT NULL)");
        tables().execute(table, "INSERT INTO {t} SELECT seq, SHA1(seq) FROM seq_1_to_" + std::to_string(rows));
        return table;
    }

    // What the list `queue` and `table` do not share, by id ("": every row once).
    std::string list_vs_table(redis::Connection& connection, const std::string& queue, const std::string& table) {
        return multiset_difference(payload_keys(list_items(connection, queue), {"id"}), all_ids(table));
    }

    std::vector<std::string> all_ids(const std::string& table) {
        std::vector<std::string> out;
        for (auto& row : tables().rows("SELECT CAST(id AS CHAR) FROM " + mysql::quote_identifier(table)))
            out.push_back(*row.at(0));
        return out;
    }

    // Write-locks `locked` (from the fixture's connection), waits until sessions other than ours wait
    // with a statement naming one of `named`, kills them (KILL CONNECTION) either at once or, when
    // `while_idle`, just after the lock is released (so the session is most likely idle), and unlocks.
    // Returns how many were killed.
    std::size_t kill_sessions_using(const std::vector<std::string>& locked, const std::vector<std::string>& named,
                                    std::size_t expected, bool while_idle = false) {
        std::string lock = "LOCK TABLES ";
        for (std::size_t i = 0; i < locked.size(); ++i)
            lock += (i ? ", " : "") + mysql::quote_identifier(locked[i]) + " WRITE";
        const std::uint64_t locker = tables().connection().connection_id();
        tables().connection().execute_text(lock);
        std::set<std::uint64_t> found;
        const auto deadline = Clock::now() + 10s;
        while (found.size() < expected && Clock::now() < deadline) {
            for (const auto& name : named) {
                auto result = watcher_->query(
                    "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID() AND "
                    "ID <> ? AND LOCATE(?, INFO) > 0",
                    {options().user, static_cast<std::int64_t>(locker), mysql::quote_identifier(name)});
                while (result.next()) found.insert(result.uint64(1));
            }
            if (found.size() < expected) std::this_thread::sleep_for(5ms);
        }
        if (while_idle) {
            tables().connection().execute_text("UNLOCK TABLES");
            std::this_thread::sleep_for(20ms);
        }
        for (std::uint64_t id : found) {
            try {
                watcher_->execute_text("KILL CONNECTION " + std::to_string(id));
            } catch (const DbError& error) {
                ADD_FAILURE() << "KILL CONNECTION " << id << ": " << error.what();
            }
        }
        if (!while_idle) tables().connection().execute_text("UNLOCK TABLES");
        EXPECT_EQ(found.size(), expected) << "sessions waiting on the locked tables";
        return found.size();
    }

    redis::Connection& redis() { return *redis_; }

    std::optional<mysql::Connection> watcher_;
};

TEST_F(BackfillFaultTest, ReaderConnectionKilledMidRangeEveryRowOnceInRedis) {
    const auto table = numbered_table("bf_kill_reader", 3000);
    JobSpec spec = redis_job(table);
    spec.workers = 1;
    spec.rate = 1200;  // 2.5 s
    auto job = std::async(std::launch::async, [&] { return run_job(spec); });

    std::size_t killed = 0;
    wait_for_rows([&] { return redis().command({"LLEN", queue_}).integer; }, 500);
    killed += kill_sessions_using({table}, {table}, 1);                    // in the middle of a page query
    std::this_thread::sleep_for(500ms);
    killed += kill_sessions_using({table}, {table}, 1, /*while_idle=*/true);  // between pages
    ASSERT_EQ(job.wait_for(30s), std::future_status::ready) << "run_job hung after its connection was killed";
    const JobSummary summary = job.get();

    EXPECT_EQ(killed, 2u);
    EXPECT_FALSE(summary.interrupted);
    EXPECT_EQ(summary.rows_written, 3000u);
    EXPECT_EQ(list_vs_table(redis(), queue_, table), "");
}

TEST_F(BackfillFaultTest, ReaderAndMySqlSinkConnectionsKilledNoRowLost) {
    const auto table = numbered_table("bf_kill_both", 3000);
    const std::string queue_name = "rp_test_bf_kill_q_" + std::to_string(::getpid());
    const std::string ddl = mysql::queue_table_ddl(queue_name);
    const auto queue_table = tables().create("bf_kill_q", ddl.substr(ddl.find('(')));
    JobSpec spec = redis_job(table);
    spec.sink.uri = std::getenv("ROWPUMP_MYSQL_URL");
    spec.sink.queue = queue_table;
    spec.workers = 1;
    spec.rate = 1200;
    auto job = std::async(std::launch::async, [&] { return run_job(spec); });

    // One at a time: while the sink waits, the reader soon has no free page slot and issues no query.
    std::size_t killed = 0;
    wait_for_rows([&] { return static_cast<long long>(tables().count(queue_table)); }, 500);
    killed += kill_sessions_using({table}, {table}, 1);              // the reader, in its SELECT
    std::this_thread::sleep_for(300ms);
    killed += kill_sessions_using({queue_table}, {queue_table}, 1);  // the sink, in its INSERT
    std::this_thread::sleep_for(300ms);
    killed += kill_sessions_using({queue_table}, {queue_table}, 1, /*while_idle=*/true);
    ASSERT_EQ(job.wait_for(30s), std::future_status::ready) << "run_job hung after its connections were killed";
    const JobSummary summary = job.get();

    EXPECT_EQ(killed, 3u);
    EXPECT_EQ(summary.rows_written, 3000u);
    const auto keys = payload_keys(queue_payloads(tables().connection(), queue_table), {"id"});
    // At-least-once: a sink killed around its COMMIT may insert a batch twice; nothing may be missing.
    EXPECT_EQ(multiset_difference(distinct(keys), all_ids(table)), "") << "rows lost or unexpected";
    EXPECT_LE(keys.size(), 3000u + 2 * 50) << "more duplicates than the two killed batches can explain";
}

// A private Redis with an append-only file fsynced on every write: what it acknowledged survives SIGKILL.
class PersistentRedis {
public:
    PersistentRedis() : directory_(make_directory()), server_({"--appendonly", "yes", "--appendfsync", "always",
                                                               "--dir", directory_}) {}
    ~PersistentRedis() {
        server_.kill();
        std::error_code ignored;
        std::filesystem::remove_all(directory_, ignored);
    }
    PrivateRedisServer& server() { return server_; }

private:
    static std::string make_directory() {
        std::string path = ::testing::TempDir() + "rowpump_aof_XXXXXX";
        if (::mkdtemp(path.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << path;
        return path;
    }
    std::string directory_;
    PrivateRedisServer server_;
};

// run_job(spec) on its own thread, returned once the queue in `server` holds `rows` items.
std::future<JobSummary> started_until_queued(PrivateRedisServer& server, const JobSpec& spec, long long rows) {
    auto job = std::async(std::launch::async, [spec] { return run_job(spec); });
    redis::Connection connection(RedisOptions::from_url(server.url()));
    wait_for_rows([&] { return connection.command({"LLEN", spec.sink.queue}).integer; }, rows);
    return job;
}

// A run of `spec` into `server` (2 workers, 2 s at the rate cap), during which the server is SIGKILLed
// once 800 rows are in the queue and started again a second later. The summary, once the run has ended.
std::optional<JobSummary> run_across_a_restart(PrivateRedisServer& server, JobSpec spec) {
    spec.sink.uri = server.url();
    spec.workers = 2;
    spec.rate = 1500;
    spec.sink.timeouts.retry_budget = std::chrono::seconds(20);
    auto job = started_until_queued(server, spec, 800);
    server.kill();
    std::this_thread::sleep_for(1s);
    server.start();
    if (job.wait_for(40s) != std::future_status::ready) {
        ADD_FAILURE() << "run_job did not finish after Redis came back";
        job.wait();
        return std::nullopt;
    }
    return job.get();
}

TEST_F(BackfillFaultTest, RedisKilledAndRestartedNoRowLost) {
    const auto table = numbered_table("bf_redis_restart", 3000);
    PersistentRedis persistent;
    JobSpec spec = redis_job(table);
    spec.sink.queue = "rp_test:bf_restart:" + std::to_string(::getpid());
    spec.partitions = 2;
    const auto summary = run_across_a_restart(persistent.server(), spec);
    ASSERT_TRUE(summary);

    redis::Connection connection(RedisOptions::from_url(persistent.server().url()));
    const auto keys = payload_keys(list_items(connection, spec.sink.queue), {"id"});
    EXPECT_EQ(summary->rows_written, 3000u);
    EXPECT_EQ(multiset_difference(distinct(keys), all_ids(table)), "") << "rows lost across the Redis restart";
    EXPECT_GT(keys.size(), 0u);
}

// With a job id, every call of the job store survives a reconnect too, not only the pages: a restart
// mid-run used to end the run with exit 1 ("lost during a pipelined write") although every row was in.
TEST_F(BackfillFaultTest, JobIdIntoRedisSurvivesARestartWithEveryRowOnce) {
    const auto table = numbered_table("bf_job_restart", 3000);
    PersistentRedis persistent;
    JobSpec spec = redis_job(table);
    spec.sink.queue = "rp_test:bf_job_restart:" + std::to_string(::getpid());
    spec.job_id = "rp_test_job_restart";
    spec.partitions = 3;
    const auto summary = run_across_a_restart(persistent.server(), spec);
    ASSERT_TRUE(summary);

    redis::Connection connection(RedisOptions::from_url(persistent.server().url()));
    const auto keys = payload_keys(list_items(connection, spec.sink.queue), {"id"});
    EXPECT_FALSE(summary->interrupted);
    EXPECT_EQ(summary->job_rows_written, 3000u);
    EXPECT_EQ(multiset_difference(keys, all_ids(table)), "") << "rows lost or written twice across the restart";
}

// The job store's own connection idles while the workers write; a server idle timeout shorter than the
// run closes it, and the store's next call must reconnect instead of failing the run.
TEST_F(BackfillFaultTest, JobIdIntoRedisSurvivesAnIdleTimeoutShorterThanTheRun) {
    const auto table = numbered_table("bf_job_idle", 3000);
    PrivateRedisServer server({"--timeout", "1"});
    JobSpec spec = private_redis_job(table, server, "bf_job_idle");
    spec.job_id = "rp_test_job_idle";
    spec.partitions = 2;
    spec.rate = 1000;  // 3 s, with the store idle for all of it
    const JobSummary summary = run_job(spec);

    redis::Connection connection(RedisOptions::from_url(server.url()));
    EXPECT_FALSE(summary.interrupted);
    EXPECT_EQ(summary.job_rows_written, 3000u);
    EXPECT_EQ(list_vs_table(connection, spec.sink.queue, table), "");
}

TEST_F(BackfillFaultTest, RedisPausedLongerThanAPageStillDeliversEveryRowOnce) {
    const auto table = numbered_table("bf_redis_pause", 2000);
    PrivateRedisServer server;
    JobSpec spec = private_redis_job(table, server, "bf_pause");
    spec.rate = 2000;  // 1 s without the pause
    auto job = started_until_queued(server, spec, 400);

    server.freeze();
    std::this_thread::sleep_for(2s);  // the pause is what is tested: longer than a page takes
    server.thaw();
    ASSERT_EQ(job.wait_for(40s), std::future_status::ready) << "run_job did not finish after Redis resumed";
    const JobSummary summary = job.get();

    EXPECT_EQ(summary.rows_written, 2000u);
    // A stall shorter than the command timeout is waited out, not retried: nothing is sent twice.
    redis::Connection control(RedisOptions::from_url(server.url()));
    EXPECT_EQ(list_vs_table(control, spec.sink.queue, table), "");
}

TEST_F(BackfillFaultTest, RedisDownLongerThanTheRetryBudgetFailsWithAQueueError) {
    const auto table = numbered_table("bf_redis_gone", 3000);
    PrivateRedisServer server;
    JobSpec spec = private_redis_job(table, server, "bf_gone");
    spec.rate = 1000;
    spec.sink.timeouts.retry_budget = std::chrono::seconds(2);
    auto job = started_until_queued(server, spec, 300);
    server.kill();
    const auto killed_at = Clock::now();
    ASSERT_EQ(job.wait_for(30s), std::future_status::ready) << "run_job kept retrying a dead Redis";
    const double seconds = std::chrono::duration<double>(Clock::now() - killed_at).count();
    try {
        job.get();
        ADD_FAILURE() << "run_job returned although Redis was gone";
    } catch (const QueueError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("unreachable"), std::string::npos) << message;
        EXPECT_NE(message.find("127.0.0.1:" + std::to_string(server.port())), std::string::npos) << message;
        EXPECT_FALSE(error.is_transient()) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    } catch (const std::exception& error) {
        ADD_FAILURE() << "expected a QueueError, got: " << error.what();
    }
    EXPECT_GE(seconds, 1.5) << "gave up before the retry budget was spent";
    EXPECT_LE(seconds, 8.0) << "kept going long after the 2 s retry budget";
}

}  // namespace
}  // namespace rowpump::test
