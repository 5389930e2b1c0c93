// Scale-out with a job id (docs/DESIGN.md, "Delivery guarantees"): three `rowpump backfill` processes share one
// job (--partitions 12, one worker each) by leasing its ranges, through the built CLI.
//  - One is SIGKILLed mid-run: its connection is gone, so the other two take its range over at once
//    (well before the 60 s lease timeout) and finish the job, every row in the queue exactly once.
//  - One is SIGSTOPped (its connection stays open) with --lease-timeout 2: the other two take its range
//    over once the lease expires and finish the job. Then it is SIGCONTed: its next page is fenced off
//    (it says so), and the queue still holds every row exactly once. Then it is killed.
//  - MySQL sink only: a process stopped inside its page transaction (after the fenced checkpoint UPDATE,
//    before COMMIT) must not keep its range from the others for longer than the lease either.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fault/job_sink_fixture.hpp"
#include "integration/cli_process.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using Processes = std::vector<std::unique_ptr<CliProcess>>;

std::string describe_all(const Processes& processes) {
    std::string out;
    for (std::size_t i = 0; i < processes.size(); ++i) out += "=== process " + std::to_string(i) + "\n" + processes[i]->describe() + "\n";
    return out;
}

// Three processes, one worker each, 12 ranges; each process is capped so that together they need
// about 3 s: long enough to kill or stop one of them mid-run.
constexpr int source_rows = 12000;
constexpr std::size_t process_count = 3;
constexpr double rate_per_process = source_rows / (process_count * 3.0);
// The processes move in step through ranges of 1000 rows: with 1500 rows written in all, each one is
// about halfway through its first range. (At 3000 they would all be between ranges, holding none.)
constexpr std::uint64_t mid_range_progress = source_rows / 8;
// Well below the default lease timeout (60 s): finishing within it proves a dead owner's range was
// taken over without waiting for its lease.
constexpr auto finish_timeout = 30s;

class ScaleOutFixture : public JobSinkTest {
protected:
    explicit ScaleOutFixture(Sink sink) : JobSinkTest(sink, "scale") {}

    std::optional<SourceTable> source_table() const override {
        return SourceTable{"scale_source", "(id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, amount INT NOT NULL)",
                           "INSERT INTO {t} SELECT seq * 7, CONCAT('row-', seq), seq % 1000 FROM seq_1_to_" +
                               std::to_string(source_rows)};
    }

    std::vector<std::string> backfill_args(std::optional<int> lease_timeout = std::nullopt) const {
        std::vector<std::string> args{"backfill",    "--table",     table_,   "--sink",          sink_uri(),
                                      "--queue",     queue_,        "--job-id", job_id_,         "--partitions",
                                      "12",          "--workers",   "1",      "--page-size",     "100",
                                      "--page-time-ms", "0",        "--rate", std::to_string(rate_per_process)};
        if (lease_timeout) args.insert(args.end(), {"--lease-timeout", std::to_string(*lease_timeout)});
        return args;
    }

    Processes start(std::size_t count, const std::vector<std::string>& args) {
        Processes processes;
        for (std::size_t i = 0; i < count; ++i) processes.push_back(std::make_unique<CliProcess>(args));
        return processes;
    }

    // Waits until the job has written at least `rows` rows and every process (one worker each) holds a
    // range at once, while all `processes` still run: the process a test then kills or stops has a range
    // to lose. On a loaded machine one process once leased nothing before the others had written enough,
    // and its kill proved nothing.
    void wait_for_progress(Processes& processes, std::uint64_t rows) {
        const auto deadline = Clock::now() + 30s;
        const auto ready = [&] {
            const auto job = stored_job();
            return job.rows_written >= rows && job.leased >= processes.size();
        };
        while (!ready() && Clock::now() < deadline) {
            for (auto& process : processes)
                ASSERT_FALSE(process->poll()) << "a process ended early\n" << describe_all(processes);
            std::this_thread::sleep_for(20ms);
        }
        ASSERT_TRUE(ready()) << "no progress, or not every process held a range, within 30 s\n" << describe_all(processes);
    }

    // Every process in [first, end) exits 0 within `timeout`; on failure, says what holds the job up.
    void expect_finish(Processes& processes, std::size_t first, Clock::duration timeout) {
        const auto deadline = Clock::now() + timeout;
        for (std::size_t i = first; i < processes.size(); ++i) {
            const auto remaining = std::max<Clock::duration>(deadline - Clock::now(), 0s);
            const auto ended = processes[i]->wait_for(remaining);
            ASSERT_TRUE(ended) << "process " << i << " did not finish the job in time; " << blockers()
                               << describe_all(processes);
            EXPECT_EQ(*ended, 0) << describe_all(processes);
        }
    }

    // For a failure message: MySQL transactions open for more than a second that lock range rows.
    std::string blockers() {
        if (sink_ != Sink::mysql) return "";
        std::string out;
        for (const auto& row : tables().rows(
                 "SELECT CAST(trx_mysql_thread_id AS CHAR), CAST(trx_started AS CHAR), CAST(trx_rows_locked AS CHAR) "
                 "FROM information_schema.INNODB_TRX WHERE trx_started < NOW() - INTERVAL 1 SECOND"))
            out += "connection " + row.at(0).value_or("?") + " has had a transaction open since " +
                   row.at(1).value_or("?") + " (" + row.at(2).value_or("?") + " rows locked); ";
        for (const auto& row : tables().rows(
                 "SELECT CAST(range_no AS CHAR), CAST(owner AS CHAR) FROM rowpump_job_ranges WHERE job_id = ? AND "
                 "status = 'pending'",
                 {job_id_}))
            out += "range " + row.at(0).value_or("?") + " pending, owner " + row.at(1).value_or("?") + "; ";
        return out;
    }

    void expect_exactly_once() { EXPECT_EQ(JobSinkTest::expect_exactly_once(table_, queue_, job_id_).ranges, 12u); }

    // A woken process tries to write the page it held when it was stopped: waits until the store refused it
    // (the process says so), so that the exactly-once check after it has seen that write tried. Without the
    // fence the check would pass as well as before the page went in; a test that never reached the fence fails.
    static void expect_fenced(CliProcess& process) {
        const auto fenced = [&] { return process.err().find("was taken over by another worker") != std::string::npos; };
        EXPECT_TRUE(wait_until(fenced, 30s)) << "the woken process never met the fence\n" << process.describe();
    }

    static bool logged(const Processes& processes, std::size_t first, const std::string& a, const std::string& b) {
        for (std::size_t i = first; i < processes.size(); ++i)
            for (std::istringstream in(processes[i]->err()); !in.eof();) {
                std::string line;
                std::getline(in, line);
                if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) return true;
            }
        return false;
    }

};

class ScaleOutTest : public ScaleOutFixture, public ::testing::WithParamInterface<Sink> {
protected:
    ScaleOutTest() : ScaleOutFixture(GetParam()) {}
};

// A page of the Redis sink is one Lua call: there is no open transaction to stop a process in.
class MySqlScaleOutTest : public ScaleOutFixture {
protected:
    MySqlScaleOutTest() : ScaleOutFixture(Sink::mysql) {}
};

TEST_P(ScaleOutTest, AKilledProcessRangeIsTakenOverAtOnce) {
    auto processes = start(process_count, backfill_args());
    wait_for_progress(processes, mid_range_progress);
    if (HasFatalFailure()) return;
    EXPECT_EQ(processes[0]->kill(), -SIGKILL);

    expect_finish(processes, 1, finish_timeout);
    if (HasFatalFailure()) return;
    expect_exactly_once();
    EXPECT_TRUE(logged(processes, 1, "taking over range", "gone"))
        << "a survivor should have taken the killed process's range over\n" << describe_all(processes);
}

TEST_P(ScaleOutTest, AStoppedProcessLosesItsRangeWhenItsLeaseExpires) {
    auto processes = start(process_count, backfill_args(2));
    wait_for_progress(processes, mid_range_progress);
    if (HasFatalFailure()) return;
    processes[0]->signal(SIGSTOP);

    expect_finish(processes, 1, finish_timeout);
    if (HasFatalFailure()) return;
    expect_exactly_once();
    // Stopped between pages, its lease simply expires; stopped inside a MySQL page transaction, a survivor
    // ends that transaction's connection once the lease has expired, and then finds the owner gone.
    EXPECT_TRUE(logged(processes, 1, "taking over range", "lease expired") ||
                logged(processes, 1, "held its page transaction past its lease", "ending that connection"))
        << "a survivor should have taken the stopped process's range over\n" << describe_all(processes);

    // Woken up, the stopped process still holds pages of its old range: the fence must refuse them.
    processes[0]->signal(SIGCONT);
    expect_fenced(*processes[0]);
    expect_exactly_once();
    processes[0]->kill();
}

// Deterministic form of the worst moment to stop a process with the MySQL sink: inside its page
// transaction, holding the row lock of its range. Once the first process is writing, the test
// write-locks the queue table so its next INSERT waits (after the fenced checkpoint UPDATE), stops the
// process, and unlocks: its transaction stays open with nobody to commit or roll it back. Two more
// processes must still finish the job once the lease (2 s) has expired.
TEST_F(MySqlScaleOutTest, AProcessStoppedInsideItsPageTransactionLosesItsRange) {
    const auto args = backfill_args(2);
    Processes processes = start(1, args);
    wait_for_progress(processes, 1);
    if (HasFatalFailure()) return;

    mysql::Connection locker(options());
    locker.execute_text("LOCK TABLES " + mysql::quote_identifier(queue_) + " WRITE");
    bool waiting = false;
    for (const auto deadline = Clock::now() + 30s; !waiting && Clock::now() < deadline;) {
        waiting = !tables()
                       .rows("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND "
                             "INFO LIKE 'INSERT%' AND LOCATE(?, INFO) > 0",
                             {mysql::quote_identifier(queue_)})
                       .empty();
        if (!waiting) std::this_thread::sleep_for(10ms);
    }
    processes[0]->signal(SIGSTOP);
    locker.execute_text("UNLOCK TABLES");
    ASSERT_TRUE(waiting) << "the first process never reached its queue INSERT\n" << describe_all(processes);

    for (std::size_t i = 1; i < process_count; ++i) processes.push_back(std::make_unique<CliProcess>(args));
    expect_finish(processes, 1, finish_timeout);
    if (HasFatalFailure()) return;
    processes[0]->signal(SIGCONT);
    expect_fenced(*processes[0]);
    expect_exactly_once();
}

INSTANTIATE_TEST_SUITE_P(Sinks, ScaleOutTest, ::testing::Values(Sink::redis, Sink::mysql), sink_name);

}  // namespace
}  // namespace rowpump::test
