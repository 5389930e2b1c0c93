// A MySQL server that stops answering mid-run (frozen, not down: SIGSTOP, a hung host, a half-open TCP
// connection) must end the run with one clear line within about the read timeout plus the retry budget.
// It used to wait forever: the read timeout was 0. The server is frozen through a relay (freezing_proxy.hpp)
// so that the MariaDB other tests share keeps running. The timeouts are flags whose --help states their
// defaults, and a server that cannot be reached at the start is said at once, with exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "fault/freezing_proxy.hpp"
#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/redis_fixture.hpp"
#include "integration/tls_fixture.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "unit/error_of.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class FrozenServerTest : public MySqlTest {};
class FrozenTlsServerTest : public TlsServerTest {};

// Runs a backfill of a table of `tables` through a relay to `source`'s server, freezes the relay once
// 500 rows are in Redis, and checks that the run ends with one clear line within its timeouts.
void expect_frozen_source_ends_the_run(MySqlOptions source, TestTables& tables) {
    const auto url = redis_url_from_env();
    ASSERT_TRUE(url) << start_redis_hint;
    const auto table = tables.create("frozen_src", "(id BIGINT PRIMARY KEY, v VARCHAR(40) NOT NULL)");
    tables.execute(table, "INSERT INTO {t} SELECT seq, SHA1(seq) FROM seq_1_to_20000");
    ASSERT_TRUE(source.socket.empty()) << "the relay needs the server on TCP";
    auto proxy = std::make_unique<FreezingProxy>(source.host, source.port);

    JobSpec spec;
    spec.mysql = std::move(source);
    spec.mysql.port = proxy->port();
    spec.mysql.connect_timeout = 2s;
    spec.mysql.read_timeout = 2s;
    spec.mysql.retry_budget = 3s;
    spec.read.table = table;
    spec.read.page_size = 100;
    spec.read.target_page_time = 0ms;
    spec.read.page_timeout = 1s;  // the reader's socket then waits 1 + 5 s
    spec.workers = 1;
    spec.partitions = 1;
    spec.rate = 2000;
    spec.sink.uri = *url;
    spec.sink.queue = "rp_test:frozen:" + std::to_string(::getpid());
    redis::Connection redis(RedisOptions::from_url(*url));
    redis.command({"DEL", spec.sink.queue});

    auto job = std::async(std::launch::async, [&] { return run_job(spec); });
    const auto started = Clock::now();
    while (redis.command({"LLEN", spec.sink.queue}).integer < 500 && Clock::now() - started < 30s)
        std::this_thread::sleep_for(10ms);
    proxy->freeze();
    const auto frozen_at = Clock::now();

    const bool ended = job.wait_for(90s) == std::future_status::ready;
    redis.command({"DEL", spec.sink.queue});
    if (!ended) {
        // Closing the relay's sockets ends the stuck read, so the suite does not wait for it forever.
        proxy.reset();
        FAIL() << "run_job still waits for the frozen server after 90 s";
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - frozen_at).count();
    // No error at all fails here too: run_job must not finish although its server froze.
    const std::string message = error_of<Error>([&] { job.get(); });
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    EXPECT_NE(message.find("MySQL"), std::string::npos) << message;
    EXPECT_NE(message.find("gave up after retrying for 3 s"), std::string::npos) << message;
    // 6 s for the page read, then 3 s of reconnects that each wait up to 2 s.
    EXPECT_LT(seconds, 30.0) << "took far longer than the timeouts allow";
    EXPECT_GT(seconds, 5.0) << "gave up before the page's read timeout";
}

TEST_F(FrozenServerTest, AFrozenSourceEndsTheRunWithOneClearLineWithinItsTimeouts) {
    expect_frozen_source_ends_the_run(options(), tables());
}

// Over TLS the driver's non-blocking reads ask to wait for the socket with no timeout, so a reader that
// waited its own way on them waited forever.
TEST_F(FrozenTlsServerTest, AFrozenSourceOverTlsEndsTheRunWithinItsTimeoutsToo) {
    expect_frozen_source_ends_the_run(options_, tables());
}

TEST(ServerTimeoutFlags, HelpStatesEachDefault) {
    const CliRun run = run_rowpump({"backfill", "--help"});
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    for (const char* expected : {"--read-timeout", "--write-timeout", "--page-timeout", "--retry-budget",
                                 "(default 30", "(default 60"})
        EXPECT_NE(run.out.find(expected), std::string::npos) << expected << "\n" << run.describe();
}

TEST_F(FrozenServerTest, ARedisThatCannotBeReachedAtTheStartIsOneLineAtOnce) {
    const auto table = tables().create("unreachable_sink", "(id BIGINT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_10");
    const auto started = Clock::now();
    const CliRun run = run_rowpump({"backfill", "--mysql", mysql_url_for_command_line(), "--table", table,
                                    "--sink", "redis://127.0.0.1:1/0", "--queue", "rp_test:unreachable"});
    EXPECT_LT(Clock::now() - started, 10s) << "the retry budget was waited out before the cause was said";
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_NE(run.err.find("cannot connect to Redis at redis://127.0.0.1:1/0"), std::string::npos) << run.describe();
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "one line\n" << run.describe();
}

}  // namespace
}  // namespace rowpump::test
