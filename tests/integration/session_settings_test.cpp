// Session settings against real servers: every session reads in UTC (a TIMESTAMP is written with a Z even
// when the server's zone is +05:00), --set-vars reaches every session of a run and a bad one is refused
// before anything is written, and --consistent-snapshot reads one snapshot in every worker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "integration/tls_fixture.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

JobSpec file_job(const MySqlOptions& mysql, const std::string& table, const std::string& file) {
    JobSpec spec;
    spec.mysql = mysql;
    spec.read.table = table;
    spec.sink.uri = "file:" + file;
    return spec;
}

// --- time zone (on the TLS server, whose global time zone is +05:00) --------------------------------------

using TimeZoneTest = TlsServerTest;

TEST_F(TimeZoneTest, TimestampIsWrittenInUtcWithZAndDatetimeAsStored) {
    const auto zone = tables().rows("SELECT @@global.time_zone");
    ASSERT_EQ(zone.at(0).at(0), "+05:00") << "the TLS server should run at +05:00 (scripts/services.sh)";
    const auto table = tables().create("utc", "(id INT PRIMARY KEY, ts TIMESTAMP(3) NULL, dt DATETIME(3))");
    // 1717243200.25 is 2024-06-01 12:00:00.250 UTC, whatever the inserting session's zone.
    tables().execute(table, "INSERT INTO {t} VALUES (1, FROM_UNIXTIME(1717243200.25), '2024-06-01 12:00:00.250')");
    const std::string file = fresh_temp_path("utc");
    run_job(file_job(options_, table, file));
    EXPECT_EQ(slurp(file), "{\"id\":1,\"ts\":\"2024-06-01T12:00:00.250Z\",\"dt\":\"2024-06-01T12:00:00.250\"}\n");
    std::remove(file.c_str());
}

// --- --set-vars --------------------------------------------------------------------------------------------

class SetVarsTest : public MySqlTest {
protected:
    void TearDown() override {
        std::remove(file_.c_str());
        MySqlTest::TearDown();
    }
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"set_vars", "(id INT PRIMARY KEY)", "INSERT INTO {t} SELECT seq FROM seq_1_to_500"};
    }

    // The filter reads the variable in the session that runs each page (and the planner's count): only a
    // session that has it set sees any row.
    static constexpr const char* filter = "@@session.innodb_lock_wait_timeout = 7";
    std::string file_ = fresh_temp_path("set_vars");
};

TEST_F(SetVarsTest, AVariableReachesEverySessionOfTheRun) {
    JobSpec spec = file_job(options(), table_, file_);
    spec.read.where = filter;
    spec.read.page_size = 50;
    spec.workers = 3;
    spec.partitions = 6;
    spec.mysql.session_variables = {{"innodb_lock_wait_timeout", "7"}};
    const JobSummary summary = run_job(spec);
    EXPECT_EQ(summary.rows_written, 500u);
    EXPECT_EQ(lines(slurp(file_)).size(), 500u);

    // The same run without it reads nothing: the filter does depend on the variable.
    spec.mysql.session_variables.clear();
    std::remove(file_.c_str());
    EXPECT_EQ(run_job(spec).rows_written, 0u);
}

TEST_F(SetVarsTest, TheCliFlagSetsTheVariable) {
    const auto run = run_rowpump({"backfill", "--table", table_, "--where", filter, "--workers", "2", "--set-vars",
                                  "innodb_lock_wait_timeout=7,max_statement_time=30", "--sink", "file:" + file_});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(lines(slurp(file_)).size(), 500u) << run.describe();
}

TEST_F(SetVarsTest, BadVariablesExit2WithOneLineAndWriteNothing) {
    const auto expect_refused = [&](const std::string& vars, const std::string& says) {
        const auto run = run_rowpump({"backfill", "--table", table_, "--set-vars", vars, "--sink", "file:" + file_});
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        const auto err = lines(run.err);
        ASSERT_EQ(err.size(), 1u) << run.describe();
        EXPECT_NE(err[0].find(says), std::string::npos) << run.describe();
        EXPECT_FALSE(std::filesystem::exists(file_)) << vars << " created the sink file\n" << run.describe();
    };
    expect_refused("innodb_lock_wait_timeout=1;DROP TABLE x", "invalid value '1;DROP TABLE x'");
    expect_refused("lock wait=1", "invalid session variable name 'lock wait'");
    expect_refused("rp_test_no_such_variable=1", "refused the session variable rp_test_no_such_variable=1");
    expect_refused("innodb_lock_wait_timeout=abc", "Incorrect argument type");
    expect_refused("version=x", "read only");
}

// --- --consistent-snapshot ---------------------------------------------------------------------------------

class ConsistentSnapshotTest : public MySqlTest {
protected:
    // Even keys 2..8000: the odd keys between them are free for rows added during the run.
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"snapshot", "(id BIGINT PRIMARY KEY, v VARCHAR(20))",
                           "INSERT INTO {t} SELECT seq * 2, 'before' FROM seq_1_to_4000"};
    }
    void TearDown() override {
        std::remove(file_.c_str());
        MySqlTest::TearDown();
    }

    // A run slow enough (4000 rows at 2000 rows/s, 50-row pages) that no worker is past the first tenth of
    // its range when, at the first progress report, rows are added in the upper half of every range, above
    // the table's maximum, and every row's value changes.
    std::vector<std::string> run_while_the_table_changes(bool consistent_snapshot) {
        JobSpec spec = file_job(options(), table_, file_);
        spec.workers = 4;
        spec.partitions = 4;
        spec.read.page_size = 50;
        spec.read.target_page_time = 0ms;
        spec.rate = 2000;
        spec.consistent_snapshot = consistent_snapshot;
        std::atomic<bool> changed{false};
        JobControl control;
        control.on_progress = [&](const JobProgress&) {
            if (changed.exchange(true)) return;
            tables().execute(table_, "INSERT INTO {t} SELECT seq, 'added' FROM seq_1_to_8100 "
                                     "WHERE seq % 2 = 1 AND (seq % 2000 > 1000 OR seq > 8000)");
            tables().execute(table_, "UPDATE {t} SET v = 'changed'");
        };
        const JobSummary summary = run_job(spec, control);
        EXPECT_TRUE(changed.load());
        EXPECT_FALSE(summary.interrupted);
        return lines(slurp(file_));
    }

    static std::vector<std::string> lines_of_the_table_at_the_start() {
        std::vector<std::string> out;
        for (int id = 2; id <= 8000; id += 2) out.push_back("{\"id\":" + std::to_string(id) + ",\"v\":\"before\"}");
        return out;
    }

    std::string file_ = fresh_temp_path("snapshot");
};

TEST_F(ConsistentSnapshotTest, RowsAddedOrChangedAfterTheStartAreSeenByNoWorker) {
    const auto written = run_while_the_table_changes(true);
    EXPECT_EQ(multiset_difference(written, lines_of_the_table_at_the_start()), "");
}

// The control: without the snapshot the same run does see the rows added and changed, so the test above
// can tell a snapshot from none.
TEST_F(ConsistentSnapshotTest, WithoutItTheWorkersSeeTheChanges) {
    const auto written = run_while_the_table_changes(false);
    // The added rows have odd ids (and were changed too, by the UPDATE that followed).
    const auto added = std::count_if(written.begin(), written.end(), [](const std::string& line) {
        const auto id = std::stoll(line.substr(line.find(':') + 1));
        return id % 2 == 1;
    });
    const auto changed = std::count_if(written.begin(), written.end(), [](const std::string& line) {
        return line.find("changed") != std::string::npos;
    });
    EXPECT_GT(added, 0) << "no added row was read";
    EXPECT_GT(changed, 0) << "no changed row was read";
}

TEST_F(ConsistentSnapshotTest, AnOpenWriteTransactionMakesTheLockFailWithALine) {
    mysql::Connection writer(options());
    writer.execute_text("START TRANSACTION");
    writer.execute_text("UPDATE " + mysql::quote_identifier(table_) + " SET v = 'open' WHERE id = 2");
    JobSpec spec = file_job(options(), table_, file_);
    spec.workers = 2;
    spec.consistent_snapshot = true;
    spec.mysql.session_variables = {{"lock_wait_timeout", "1"}};
    try {
        run_job(spec);
        ADD_FAILURE() << "the snapshot was taken while a transaction held the table";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("--consistent-snapshot could not lock"), std::string::npos)
            << error.what();
    }
    writer.execute_text("ROLLBACK");
    EXPECT_FALSE(std::filesystem::exists(file_) && !slurp(file_).empty()) << "rows were written";
}

// The snapshot transaction holds the table's metadata lock, so a LOCK TABLES ... WRITE cannot make the
// reader wait in plain sight as connection_loss_test does: each row sleeps instead, and the reader's
// page query is found in the process list by its table's name while it runs.
TEST_F(ConsistentSnapshotTest, ALostReaderConnectionFailsTheReadWithALine) {
    ReadSpec read;
    read.table = table_;
    read.page_size = 50;
    read.where = "SLEEP(0.002) = 0";
    const auto plan = std::make_shared<const ReadPlan>(plan_read(options(), read));
    auto sessions = open_snapshot_sessions(options(), *plan, 1);
    PageReader reader(sessions.at(0), plan);
    ASSERT_TRUE(reader.next_page());
    mysql::Connection watcher(options());
    // Read on to the end: a page may come from a stretch the server has already sent, so the kill lands
    // in whichever statement runs next (a stretch of pages is one statement: docs/DESIGN.md, "Paging").
    auto page = std::async(std::launch::async, [&] {
        while (reader.next_page()) {
        }
    });
    std::uint64_t id = 0;
    for (const auto deadline = std::chrono::steady_clock::now() + 20s;
         id == 0 && std::chrono::steady_clock::now() < deadline;) {
        auto found = watcher.query("SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND DB = DATABASE() "
                                   "AND ID <> CONNECTION_ID() AND INFO LIKE 'SELECT %' AND LOCATE(?, INFO) > 0",
                                   {options().user, mysql::quote_identifier(table_)});
        if (found.next()) id = found.uint64(1);
        else std::this_thread::sleep_for(5ms);
    }
    ASSERT_NE(id, 0u) << "the reader's query never showed up in the process list";
    watcher.execute_text("KILL CONNECTION " + std::to_string(id));
    try {
        page.get();
        ADD_FAILURE() << "the reader went on after losing its snapshot";
    } catch (const DbError& error) {
        EXPECT_NE(std::string(error.what()).find("a --consistent-snapshot reader cannot reconnect"), std::string::npos)
            << error.what();
    }
}

TEST_F(ConsistentSnapshotTest, TheCliFlagReadsEveryRowAndRefusesAJobId) {
    const auto run = run_rowpump({"backfill", "--table", table_, "--workers", "3", "--partitions", "5",
                                  "--consistent-snapshot", "--sink", "file:" + file_});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(multiset_difference(lines(slurp(file_)), lines_of_the_table_at_the_start()), "") << run.describe();
    EXPECT_NE(run.err.find("consistent snapshot: 3 readers started on one snapshot"), std::string::npos)
        << run.describe();

    const auto refused = run_rowpump({"backfill", "--table", table_, "--consistent-snapshot", "--job-id",
                                      "rp_test_snapshot", "--sink", "file:" + file_ + ".2"});
    EXPECT_EQ(refused.exit_code, 2) << refused.describe();
    EXPECT_EQ(lines(refused.err).size(), 1u) << refused.describe();
    EXPECT_NE(refused.err.find("--consistent-snapshot cannot be combined with --job-id"), std::string::npos)
        << refused.describe();
}

TEST_F(ConsistentSnapshotTest, IsRefusedWithAJobIdOrFollow) {
    JobSpec spec = file_job(options(), table_, file_);
    spec.consistent_snapshot = true;
    spec.job_id = "rp_test_snapshot";
    EXPECT_THROW(run_job(spec), UsageError);
    spec.job_id.clear();
    spec.follow = true;
    EXPECT_THROW(run_job(spec), UsageError);
}

}  // namespace
}  // namespace rowpump::test
