// The throttle against real servers (docs/throttling.md): a replica of the local MariaDB whose SQL thread
// is stopped holds the copy; so does a busy server (--max-load), a critical load stops it with exit 3 and
// the job resumes exactly once; a pause file and POST /pause hold it; POST /rate changes its rate; and
// /metrics passes promtool. Each run is the built CLI, watched through its own --http endpoint.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/http_client.hpp"
#include "integration/mysql_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* replica_hint =
    "ROWPUMP_REPLICA_URL is not set: this test needs the replica that scripts/services.sh starts beside the local "
    "MariaDB (its binary log must be on: restart the servers with scripts/services.sh stop, then start), and "
    "eval \"$(bash scripts/services.sh env)\"";

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The port a run's endpoint listens on, from the line it logs (the tests ask for port 0: no collisions).
int endpoint_port(CliProcess& process) {
    const std::string marker = "/max-lag) on http://127.0.0.1:";
    const auto deadline = Clock::now() + 15s;
    while (Clock::now() < deadline && !process.poll()) {
        const std::string err = process.err();
        if (const auto at = err.find(marker); at != std::string::npos) return std::atoi(err.c_str() + at + marker.size());
        std::this_thread::sleep_for(20ms);
    }
    ADD_FAILURE() << "no endpoint came up\n" << process.describe();
    return 0;
}

struct Status {
    std::string state;
    std::string reason;
    std::uint64_t rows_written = 0;
    bool answered = false;
};

Status status(int port) {
    Status out;
    const HttpAnswer answer = http_request(port, "GET", "/status");
    if (answer.status != 200) return out;
    rapidjson::Document json;
    json.Parse(answer.body.c_str());
    if (json.HasParseError() || !json.IsObject() || !json.HasMember("state")) {
        ADD_FAILURE() << "/status is not the JSON expected: " << answer.body;
        return out;
    }
    out.answered = true;
    out.state = json["state"].GetString();
    out.reason = json["reason"].GetString();
    if (json.HasMember("rows_written")) out.rows_written = json["rows_written"].GetUint64();
    return out;
}

// Waits until `ready(status)` or `limit`; the last status either way.
template <class Ready>
Status wait_for_status(int port, std::chrono::milliseconds limit, Ready&& ready) {
    const auto deadline = Clock::now() + limit;
    Status last;
    do {
        last = status(port);
        if (last.answered && ready(last)) return last;
        std::this_thread::sleep_for(50ms);
    } while (Clock::now() < deadline);
    return last;
}

// The ids in an NDJSON file of {"id":N,...} rows, and how many rows there were.
struct FileRows {
    std::size_t rows = 0;
    std::set<long> ids;
};

FileRows file_rows(const std::string& path) {
    FileRows out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        ++out.rows;
        out.ids.insert(std::atol(line.c_str() + line.find(':') + 1));
    }
    return out;
}

int finish(CliProcess& process, std::chrono::seconds limit = 60s) {
    const auto ended = process.wait_for(limit);
    if (!ended) ADD_FAILURE() << "rowpump still running after " << limit.count() << " s: killed\n" << process.describe();
    return ended ? *ended : process.kill();
}

// Sessions that keep Threads_running up while they sleep, each on its own connection.
class BusySessions {
public:
    BusySessions(const MySqlOptions& options, int sessions, int seconds) {
        for (int i = 0; i < sessions; ++i)
            threads_.emplace_back([options, seconds] {
                try {
                    mysql::Connection connection(options);
                    connection.query("SELECT SLEEP(" + std::to_string(seconds) + ")");
                } catch (const std::exception& error) {
                    ADD_FAILURE() << "a busy session failed: " << error.what();
                }
            });
    }
    ~BusySessions() { join(); }
    void join() {
        for (auto& thread : threads_)
            if (thread.joinable()) thread.join();
    }

private:
    std::vector<std::thread> threads_;
};

class ThrottleTest : public MySqlTest {
protected:
    void SetUp() override {
        MySqlTest::SetUp();
        if (HasFatalFailure()) return;
        output_ = temp_file("throttle_out");
        pause_file_ = ::testing::TempDir() + "rp_test_pause_" + std::to_string(::getpid());
    }
    void TearDown() override {
        std::remove(output_.c_str());
        std::filesystem::remove(pause_file_);
        if (!queue_.empty()) {
            tables().connection().execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(queue_));
            for (const char* table : {"rowpump_job_ranges", "rowpump_jobs"})
                if (!tables().rows("SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND "
                                   "table_name = ?",
                                   {std::string(table)})
                         .empty())
                    tables().connection().execute(std::string("DELETE FROM ") + table + " WHERE job_id = ?", {job_id_});
        }
        MySqlTest::TearDown();
    }

    std::string numbered_table(int rows) {
        const auto table = tables().create("throttle", "(id INT PRIMARY KEY, note VARCHAR(20) NOT NULL)");
        tables().execute(table, "INSERT INTO {t} SELECT seq, CONCAT('n', seq) FROM seq_1_to_" + std::to_string(rows));
        return table;
    }

    // A backfill of `table` into the NDJSON file, 2 workers, fixed pages of `page` rows, with an endpoint.
    std::vector<std::string> file_backfill(const std::string& table, int page, std::vector<std::string> more) {
        std::vector<std::string> args{"backfill",      "--mysql",       mysql_url_, "--table",       table,
                                      "--sink",        "file:" + output_, "--overwrite", "--workers", "2",
                                      "--partitions",  "2",             "--page-size", std::to_string(page),
                                      "--page-time-ms", "0",            "--http",      "127.0.0.1:0"};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }

    // A file backfill of `table` that the pause file holds at its start, once it says it is held; nullptr
    // (and a failure) if it never served its status.
    std::unique_ptr<CliProcess> held_backfill(const std::string& table) {
        std::ofstream(pause_file_) << "";
        auto run = std::make_unique<CliProcess>(file_backfill(table, 500, {"--pause-file", pause_file_}));
        const int port = endpoint_port(*run);
        EXPECT_GT(port, 0) << run->describe();
        if (port <= 0) return nullptr;
        wait_for_status(port, 2s, [](const Status& s) { return s.state == "paused"; });
        return run;
    }

    void expect_every_row_once(int rows) {
        const FileRows got = file_rows(output_);
        EXPECT_EQ(got.rows, static_cast<std::size_t>(rows));
        EXPECT_EQ(got.ids.size(), static_cast<std::size_t>(rows));
        if (!got.ids.empty()) {
            EXPECT_EQ(*got.ids.begin(), 1);
            EXPECT_EQ(*got.ids.rbegin(), rows);
        }
    }

    double threads_running() {
        const auto rows = tables().rows("SHOW GLOBAL STATUS LIKE 'Threads_running'");
        return rows.empty() || !rows[0][1] ? 0 : std::atof(rows[0][1]->c_str());
    }

    // Starts `sessions` SLEEP(seconds) and waits until every one of them runs: the processlist shows them
    // (the same user's sessions are visible to it). Waiting for Threads_running above 5 instead once
    // stopped early on a moment of another test's load, and the check after it read 3.
    std::unique_ptr<BusySessions> busy(int sessions, int seconds) {
        auto busy = std::make_unique<BusySessions>(options(), sessions, seconds);
        const auto sleeping = [&] {
            const auto rows = tables().rows(
                "SELECT CAST(COUNT(*) AS CHAR) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(%'");
            return rows.empty() || !rows[0][0] ? 0 : std::stoi(*rows[0][0]);
        };
        const auto deadline = Clock::now() + 15s;
        while (sleeping() < sessions && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
        EXPECT_GE(sleeping(), sessions) << "every busy session should be sleeping by now";
        EXPECT_GT(threads_running(), 5) << "the sleeping sessions should keep Threads_running above 5";
        return busy;
    }

    std::string output_;
    std::string pause_file_;
    std::string queue_;   // a MySQL queue table a test wrote, dropped after it
    std::string job_id_;  // its job's rows in rowpump_jobs and rowpump_job_ranges, deleted after it
};

// The replica's URL for the command line: no password, the replica's account is the source's.
std::string command_line_url(const MySqlOptions& replica) {
    return "mysql://" + replica.user + "@" + replica.host + ":" + std::to_string(replica.port) + "/" + replica.database;
}

// The replica's SQL thread, stopped for one test and started again whatever happens.
class StoppedSqlThread {
public:
    explicit StoppedSqlThread(const MySqlOptions& replica) : connection_(replica) {
        connection_.execute_text("STOP SLAVE SQL_THREAD");
    }
    ~StoppedSqlThread() { start(); }
    void start() {
        if (started_) return;
        connection_.execute_text("START SLAVE");
        started_ = true;
    }

private:
    mysql::Connection connection_;
    bool started_ = false;
};

TEST_F(ThrottleTest, StoppedReplicaSqlThreadHoldsTheCopyUntilItRunsAgain) {
    const char* replica_env = std::getenv("ROWPUMP_REPLICA_URL");
    if (!replica_env || !*replica_env) FAIL() << replica_hint;
    const MySqlOptions replica = MySqlOptions::from_url(replica_env);
    const std::string replica_url = command_line_url(replica);
    constexpr int rows = 20000;
    constexpr int page = 500;
    constexpr int workers = 2;
    const auto table = numbered_table(rows);
    StoppedSqlThread stopped(replica);

    CliProcess run(file_backfill(table, page, {"--replica", replica_url, "--max-lag", "1"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const auto started = Clock::now();
    const Status held = wait_for_status(port, 3s, [](const Status& s) { return s.state == "throttled"; });
    EXPECT_EQ(held.state, "throttled");
    EXPECT_TRUE(contains(held.reason, "replica " + replica.host + ":" + std::to_string(replica.port)))
        << held.reason;
    EXPECT_TRUE(contains(held.reason, "SQL thread stopped")) << held.reason;
    std::this_thread::sleep_for(5s - (Clock::now() - started));
    const Status after = status(port);
    EXPECT_TRUE(after.answered) << "the run is still there, held\n" << run.describe();
    EXPECT_LE(after.rows_written, static_cast<std::uint64_t>(page * workers))
        << "at most one page per worker while the replica lags";
    EXPECT_EQ(after.state, "throttled");
    EXPECT_FALSE(run.poll()) << run.describe();

    stopped.start();
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(rows);
    EXPECT_TRUE(contains(run.err(), "reading pauses between pages: replica")) << run.describe();
}

// --lag-query replaces the measurement; POST /max-lag raises the limit above what it reports.
TEST_F(ThrottleTest, LagQueryOverMaxLagHoldsTheCopyUntilPostMaxLagRaisesIt) {
    const char* replica_env = std::getenv("ROWPUMP_REPLICA_URL");
    if (!replica_env || !*replica_env) FAIL() << replica_hint;
    const MySqlOptions replica = MySqlOptions::from_url(replica_env);
    const std::string replica_url = command_line_url(replica);
    constexpr int rows = 5000;
    const auto table = numbered_table(rows);
    CliProcess run(file_backfill(table, 500, {"--replica", replica_url, "--max-lag", "1", "--lag-query", "SELECT 5"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_for_status(port, 2s, [](const Status& s) { return s.state == "throttled"; });
    EXPECT_EQ(held.reason, "replica " + replica.host + ":" + std::to_string(replica.port) + " lag 5.0 s > 1.0 s");
    std::this_thread::sleep_for(500ms);
    const Status later = status(port);
    EXPECT_TRUE(later.answered) << run.describe();
    EXPECT_EQ(later.rows_written, 0u);
    EXPECT_EQ(http_request(port, "POST", "/max-lag?value=0").status, 400);
    ASSERT_EQ(http_request(port, "POST", "/max-lag?value=10").status, 200);
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(rows);
}

TEST_F(ThrottleTest, MaxLoadHoldsTheCopyWhileThreadsRunningIsOver) {
    constexpr int rows = 20000;
    const auto table = numbered_table(rows);
    const auto sessions = busy(8, 8);
    CliProcess run(file_backfill(table, 500, {"--max-load", "Threads_running=5"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_for_status(port, 2s, [](const Status& s) { return s.state == "throttled"; });
    EXPECT_EQ(held.state, "throttled");
    EXPECT_TRUE(contains(held.reason, "load Threads_running")) << held.reason;
    EXPECT_TRUE(contains(held.reason, "> 5")) << held.reason;
    std::this_thread::sleep_for(1s);
    const Status later = status(port);
    EXPECT_TRUE(later.answered) << "the run is still there, held\n" << run.describe();
    EXPECT_EQ(later.rows_written, 0u) << "nothing is read while the server is busy";
    EXPECT_EQ(file_rows(output_).rows, 0u);
    sessions->join();
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(rows);
}

TEST_F(ThrottleTest, CriticalLoadStopsWithExit3AndTheResumeIsExactlyOnce) {
    constexpr int rows = 20000;
    const auto table = numbered_table(rows);
    queue_ = "rp_test_throttle_q_" + std::to_string(::getpid());
    job_id_ = "rp_test_throttle_job_" + std::to_string(::getpid());
    const std::vector<std::string> args{"backfill",     "--mysql",      mysql_url_, "--table",   table,
                                        "--sink",       mysql_url_,     "--queue",  queue_,      "--job-id",
                                        job_id_,        "--workers",    "2",        "--partitions", "4",
                                        "--page-size",  "100",          "--page-time-ms", "0"};
    const auto count_queue = [&] {
        const auto got = tables().rows("SELECT CAST(COUNT(*) AS CHAR), CAST(COUNT(DISTINCT JSON_VALUE(payload, "
                                       "'$.id')) AS CHAR) FROM " +
                                       mysql::quote_identifier(queue_));
        return std::make_pair(std::stoul(*got[0][0]), std::stoul(*got[0][1]));
    };
    {
        // Long enough to outlast a slow start of the eight sessions on a loaded machine (4 s once did not).
        const auto sessions = busy(8, 8);
        std::vector<std::string> first = args;
        // Slow enough that the stop comes long before the end.
        for (const char* more : {"--critical-load", "Threads_running=5", "--rate", "2000"}) first.push_back(more);
        CliProcess run(first);
        EXPECT_EQ(finish(run, 20s), 3) << run.describe();
        EXPECT_TRUE(contains(run.err(), "critical load Threads_running")) << run.describe();
        const auto [written, distinct] = count_queue();
        EXPECT_LT(written, static_cast<unsigned long>(rows)) << "the stop came before the end";
    }
    CliProcess resume(args);
    EXPECT_EQ(finish(resume), 0) << resume.describe();
    const auto [written, distinct] = count_queue();
    EXPECT_EQ(written, static_cast<unsigned long>(rows));
    EXPECT_EQ(distinct, static_cast<unsigned long>(rows));
}

TEST_F(ThrottleTest, PauseFileAtTheStartHoldsTheCopyAtZeroRowsUntilRemoved) {
    constexpr int rows = 5000;
    const auto table = numbered_table(rows);
    std::ofstream(pause_file_) << "";
    CliProcess run(file_backfill(table, 500, {"--pause-file", pause_file_}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_for_status(port, 2s, [](const Status& s) { return s.state == "paused"; });
    EXPECT_EQ(held.state, "paused");
    EXPECT_TRUE(contains(held.reason, pause_file_)) << held.reason;
    std::this_thread::sleep_for(1500ms);
    const Status later = status(port);
    EXPECT_TRUE(later.answered) << "the run is still there, held\n" << run.describe();
    EXPECT_EQ(later.rows_written, 0u);
    EXPECT_EQ(file_rows(output_).rows, 0u);
    std::filesystem::remove(pause_file_);
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(rows);
    // Without a terminal, a progress line says at once that the copy is held, and why.
    EXPECT_TRUE(contains(run.err(), "rows/s, ETA ?; paused: pause file " + pause_file_ + " exists")) << run.describe();
}

// A copy is batch work to the scheduler, in every thread: woken by the server's data, it does not
// preempt the server (src/cli/main.cpp says what that saved).
TEST_F(ThrottleTest, EveryThreadOfACopyRunsAsBatchWork) {
    const auto held = held_backfill(numbered_table(1000));
    ASSERT_TRUE(held);
    CliProcess& run = *held;
    int threads = 0;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(run.pid()) + "/task")) {
        const int policy = ::sched_getscheduler(static_cast<pid_t>(std::stoi(task.path().filename().string())));
        if (policy < 0) continue;  // a thread that ended meanwhile
        ++threads;
        EXPECT_EQ(policy, SCHED_BATCH) << "thread " << task.path().filename() << "\n" << run.describe();
    }
    EXPECT_GT(threads, 2) << "the main thread, a worker and the HTTP server at least";
    std::filesystem::remove(pause_file_);
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(1000);
}

// Ctrl-C while the copy is held: the waiting workers stop without reading another page.
TEST_F(ThrottleTest, StopWhileHeldReadsNoMorePages) {
    const auto held = held_backfill(numbered_table(5000));
    ASSERT_TRUE(held);
    CliProcess& run = *held;
    std::this_thread::sleep_for(300ms);
    run.signal(SIGINT);
    EXPECT_EQ(finish(run, 20s), 3) << run.describe();
    EXPECT_EQ(file_rows(output_).rows, 0u) << run.describe();
    EXPECT_TRUE(contains(run.err(), "interrupted: 0 rows read, 0 written")) << run.describe();
}

// A held worker pings its connections: none of the run's sessions sits idle for the whole pause, so no
// wait_timeout can close them.
TEST_F(ThrottleTest, HeldWorkersKeepTheirConnectionsAlive) {
    const auto table = numbered_table(1000);
    // The run's sessions are told apart from those of tests running beside it by their default database:
    // one of this test's own, the table named with its schema.
    const std::string database = "rp_test_keepalive_" + std::to_string(::getpid());
    tables().connection().execute("CREATE DATABASE IF NOT EXISTS " + mysql::quote_identifier(database));
    const std::string url = mysql_url_.substr(0, mysql_url_.rfind('/') + 1) + database;
    auto args = file_backfill(options().database + "." + table, 500, {"--pause-file", pause_file_});
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--mysql") args[i + 1] = url;
    std::ofstream(pause_file_) << "";
    CliProcess run(args);
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_for_status(port, 2s, [](const Status& s) { return s.state == "paused"; });
    std::this_thread::sleep_for(4s);
    // Each of the run's sessions was busy in the last 2 s.
    std::size_t sessions = 0;
    for (const auto& row : tables().rows("SELECT CAST(ID AS CHAR), CAST(TIME AS CHAR), COMMAND FROM "
                                         "information_schema.PROCESSLIST WHERE DB = ?",
                                         {database})) {
        ++sessions;
        EXPECT_LE(std::atoi(row[1]->c_str()), 2) << "session " << *row[0] << " idle (" << *row[2] << ") for "
                                                  << *row[1] << " s during the pause";
    }
    EXPECT_GE(sessions, 2u) << "the two workers' readers at least";
    EXPECT_TRUE(status(port).answered) << run.describe();
    std::filesystem::remove(pause_file_);
    EXPECT_EQ(finish(run), 0) << run.describe();
    tables().connection().execute("DROP DATABASE IF EXISTS " + mysql::quote_identifier(database));
}

TEST_F(ThrottleTest, PostPauseFreezesTheRowCountAndPostResumeFinishes) {
    constexpr int rows = 8000;
    const auto table = numbered_table(rows);
    CliProcess run(file_backfill(table, 100, {"--max-page-size", "100", "--rate", "2000"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_for_status(port, 5s, [](const Status& s) { return s.rows_written > 0; });
    ASSERT_EQ(http_request(port, "POST", "/pause").status, 200);
    EXPECT_EQ(status(port).state, "paused");
    // The pages already read (three per worker at most) are still written.
    std::this_thread::sleep_for(1s);
    const std::uint64_t frozen = status(port).rows_written;
    std::this_thread::sleep_for(1500ms);
    const Status still = status(port);
    EXPECT_TRUE(still.answered) << "the run is still there, paused\n" << run.describe();
    EXPECT_EQ(still.rows_written, frozen) << "no row is written while paused";
    EXPECT_LT(frozen, static_cast<std::uint64_t>(rows));
    EXPECT_EQ(still.state, "paused");
    ASSERT_EQ(http_request(port, "POST", "/resume").status, 200);
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(rows);
}

TEST_F(ThrottleTest, PostRateChangesTheMeasuredRate) {
    constexpr int rows = 20000;
    const auto table = numbered_table(rows);
    CliProcess run(file_backfill(table, 100, {"--max-page-size", "100", "--rate", "1000"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const auto rate_over = [&](std::chrono::milliseconds window) {
        const auto start_rows = status(port).rows_written;
        const auto start = Clock::now();
        std::this_thread::sleep_for(window);
        const auto end_rows = status(port).rows_written;
        return static_cast<double>(end_rows - start_rows) /
               std::chrono::duration<double>(Clock::now() - start).count();
    };
    wait_for_status(port, 5s, [](const Status& s) { return s.rows_written > 0; });
    const double slow = rate_over(2s);
    ASSERT_EQ(http_request(port, "POST", "/rate?value=4000").status, 200);
    std::this_thread::sleep_for(300ms);
    const double fast = rate_over(2s);
    EXPECT_NEAR(slow, 1000, 300) << "the cap given at the start";
    EXPECT_GT(fast, 2.5 * slow) << "slow " << slow << " rows/s, then " << fast << " rows/s";
    EXPECT_EQ(http_request(port, "POST", "/rate?value=abc").status, 400);
    ASSERT_EQ(http_request(port, "POST", "/rate?value=0").status, 200);
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(rows);
}

TEST_F(ThrottleTest, MetricsPassPromtoolCheckMetrics) {
    const auto table = numbered_table(1000);
    std::ofstream(pause_file_) << "";
    CliProcess run(file_backfill(table, 500, {"--pause-file", pause_file_}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_for_status(port, 2s, [](const Status& s) { return s.state == "paused"; });
    std::this_thread::sleep_for(300ms);
    const HttpAnswer metrics = http_request(port, "GET", "/metrics");
    ASSERT_EQ(metrics.status, 200);
    for (const char* family : {"rowpump_rows_read_total", "rowpump_rows_written_total", "rowpump_pages_read_total",
                               "rowpump_retries_total", "rowpump_throttled_seconds_total{reason=\"pause_file\"}",
                               "rowpump_state{state=\"paused\"} 1", "rowpump_ranges{state=\"pending\"} 2"})
        EXPECT_TRUE(contains(metrics.body, family)) << family << " in\n" << metrics.body;
    const std::string page = temp_file("metrics");
    std::ofstream(page) << metrics.body;
    const std::string report = temp_file("promtool");
    const int checked = std::system(("promtool check metrics < " + page + " > " + report + " 2>&1").c_str());
    EXPECT_EQ(checked, 0) << slurp(report) << "\n" << metrics.body;
    std::remove(page.c_str());
    std::remove(report.c_str());
    std::filesystem::remove(pause_file_);
    EXPECT_EQ(finish(run), 0) << run.describe();
}

TEST_F(ThrottleTest, BadThrottleFlagsExit2BeforeAnythingIsWritten) {
    const auto table = numbered_table(10);
    const auto bad = [&](std::vector<std::string> more, const std::string& needle) {
        CliProcess run(file_backfill(table, 100, std::move(more)));
        EXPECT_EQ(finish(run, 20s), 2) << run.describe();
        EXPECT_TRUE(contains(run.err(), needle)) << needle << "\n" << run.describe();
        EXPECT_EQ(file_rows(output_).rows, 0u);
    };
    bad({"--max-load", "Threads_running"}, "--max-load");
    bad({"--max-load", "No_such_status_variable=3"}, "No_such_status_variable");
    bad({"--critical-load", "Threads_running=x"}, "--critical-load");
    // The source itself is no replica; MariaDB 10.11 is asked by the statement of its version.
    bad({"--replica", mysql_url_}, "not a replica (SHOW REPLICA STATUS is empty)");
    bad({"--lag-query", "SELECT 0"}, "--replica");
}

}  // namespace
}  // namespace rowpump::test
