// The throttle against real servers (docs/throttling.md): a replica of the local MariaDB whose SQL thread
// is stopped holds the copy; so does a busy server (--max-load), a critical load stops it with exit 3 and
// the job resumes exactly once; a pause file holds it. Each run is the built CLI, watched through its own
// --http endpoint; each hold is awaited as such (/status: the gate closed, every worker waiting at it,
// no page being written), not slept for. The HTTP controls are in throttle_control_test.cpp.
#include <sched.h>
#include <signal.h>

#include "integration/throttle_fixture.hpp"

namespace rowpump::test {
namespace {

TEST_F(ThrottleTest, StoppedReplicaSqlThreadHoldsTheCopyUntilItRunsAgain) {
    const auto replica_or_none = replica_options();
    if (!replica_or_none) FAIL() << replica_hint;
    const MySqlOptions& replica = *replica_or_none;
    constexpr int rows = 20000;
    const auto table = numbered_table(rows);
    StoppedSqlThread stopped(replica);

    CliProcess run(file_backfill(table, 500, {"--replica", command_line_url(replica), "--max-lag", "1"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_until_held(port, "throttled", 2);
    EXPECT_TRUE(contains(held.reason, "replica " + replica.host + ":" + std::to_string(replica.port)))
        << held.reason;
    EXPECT_TRUE(contains(held.reason, "SQL thread stopped")) << held.reason;
    // The first look came before the first page: nothing was read, so nothing was written.
    EXPECT_EQ(held.rows_written, 0u);
    EXPECT_EQ(file_rows(output_).rows, 0u);
    EXPECT_FALSE(run.poll()) << run.describe();

    stopped.start();
    expect_finished_with_every_row(run, rows);
    EXPECT_TRUE(contains(run.err(), "reading pauses between pages: replica")) << run.describe();
}

// --lag-query replaces the measurement; POST /max-lag raises the limit above what it reports.
TEST_F(ThrottleTest, LagQueryOverMaxLagHoldsTheCopyUntilPostMaxLagRaisesIt) {
    const auto replica_or_none = replica_options();
    if (!replica_or_none) FAIL() << replica_hint;
    const MySqlOptions& replica = *replica_or_none;
    constexpr int rows = 5000;
    CliProcess run(numbered_backfill(rows, 500, {"--replica", command_line_url(replica), "--max-lag", "1", "--lag-query", "SELECT 5"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_until_held(port, "throttled", 2);
    EXPECT_EQ(held.reason, "replica " + replica.host + ":" + std::to_string(replica.port) + " lag 5.0 s > 1.0 s");
    EXPECT_EQ(held.rows_written, 0u);
    EXPECT_EQ(http_request(port, "POST", "/max-lag?value=0").status, 400);
    ASSERT_EQ(http_request(port, "POST", "/max-lag?value=10").status, 200);
    expect_finished_with_every_row(run, rows);
}

TEST_F(ThrottleTest, MaxLoadHoldsTheCopyWhileThreadsRunningIsOver) {
    constexpr int rows = 20000;
    const auto sessions = busy(8);
    CliProcess run(numbered_backfill(rows, 500, {"--max-load", "Threads_running=5"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_until_held(port, "throttled", 2);
    EXPECT_TRUE(contains(held.reason, "load Threads_running")) << held.reason;
    EXPECT_TRUE(contains(held.reason, "> 5")) << held.reason;
    EXPECT_EQ(held.rows_written, 0u) << "nothing is read while the server is busy";
    EXPECT_EQ(file_rows(output_).rows, 0u);
    sessions->release();
    expect_finished_with_every_row(run, rows);
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
        // Busy until the run has stopped, however slowly it starts.
        const auto sessions = busy(8);
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
    CliProcess run(paused_backfill(rows));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_until_held(port, "paused", 2);
    EXPECT_TRUE(contains(held.reason, pause_file_)) << held.reason;
    EXPECT_EQ(held.rows_written, 0u);
    EXPECT_EQ(file_rows(output_).rows, 0u);
    std::filesystem::remove(pause_file_);
    expect_finished_with_every_row(run, rows);
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
    expect_finished_with_every_row(run, 1000);
}

// Ctrl-C while the copy is held: the waiting workers stop without reading another page.
TEST_F(ThrottleTest, StopWhileHeldReadsNoMorePages) {
    const auto held = held_backfill(numbered_table(5000));
    ASSERT_TRUE(held);
    CliProcess& run = *held;
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
    wait_until_held(port, "paused", 2);
    // The time itself is what this test is about: 4 s held, longer than the 2 s idle it allows.
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
