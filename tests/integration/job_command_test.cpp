// `rowpump job list|show|drop|reset` through the built CLI, against each job store (a Redis list's keys and
// a MySQL queue table's job tables):
//  - run a job to its end, see it in list and show (text and JSON), run it again (nothing to do), reset it,
//    empty the queue, run it again: every row is written again exactly once;
//  - while another process holds a lease, drop and reset are refused (exit 2, one line) and the job stays;
//    drop --force removes it; a stopped job (its process gone) is dropped without --force;
//  - bad ids, missing jobs and a sink that keeps no jobs: one line, exit 2;
//  - a YAML job file names the sink and the job.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "fault/job_sink_fixture.hpp"
#include "integration/cli_process.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int source_rows = 3000;

class JobCommandTest : public JobSinkTest, public ::testing::WithParamInterface<Sink> {
protected:
    JobCommandTest() : JobSinkTest(GetParam(), "jobcmd") {}

    std::optional<SourceTable> source_table() const override {
        return SourceTable{"jobcmd_source", "(id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)",
                           "INSERT INTO {t} SELECT seq, CONCAT('row-', seq) FROM seq_1_to_" + std::to_string(source_rows)};
    }

    std::vector<std::string> backfill_args(std::optional<int> rate = std::nullopt) const {
        std::vector<std::string> args{"backfill", "--table", table_, "--sink", sink_uri(), "--queue", queue_,
                                      "--job-id", job_id_, "--partitions", "4", "--workers", "2",
                                      "--page-size", "100", "--page-time-ms", "0"};
        if (rate) args.insert(args.end(), {"--rate", std::to_string(*rate)});
        return args;
    }

    CliRun job(const std::string& subcommand, std::vector<std::string> more = {}) const {
        std::vector<std::string> args{"job", subcommand, "--sink", sink_uri()};
        args.insert(args.end(), more.begin(), more.end());
        return run_rowpump(args);
    }

    // `job show --json` of this test's job, parsed.
    rapidjson::Document shown() const {
        const CliRun run = job("show", {"--job-id", job_id_, "--json"});
        rapidjson::Document document;
        EXPECT_EQ(run.exit_code, 0) << run.describe();
        document.Parse(run.out.c_str());
        EXPECT_FALSE(document.HasParseError()) << run.out;
        return document;
    }

    void empty_queue() {
        if (sink_ == Sink::redis) redis_->command({"DEL", queue_});
        else tables().connection().execute_text("DELETE FROM " + mysql::quote_identifier(queue_));
    }

    // Exit 2 and exactly one line on stderr that contains `words`.
    static void expect_refused(const CliRun& run, const std::string& words) {
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        EXPECT_EQ(lines(run.err).size(), 1u) << run.err;
        EXPECT_NE(run.err.find(words), std::string::npos) << run.err;
    }
};

TEST_P(JobCommandTest, RunFinishResetRunAgainWritesEveryRowAgainExactlyOnce) {
    const CliRun first = run_rowpump(backfill_args());
    ASSERT_EQ(first.exit_code, 0) << first.describe();
    expect_exactly_once(table_, queue_, job_id_);

    const CliRun listed = job("list");
    ASSERT_EQ(listed.exit_code, 0) << listed.describe();
    const auto all = lines(listed.out);
    const auto row = std::find_if(all.begin(), all.end(), [&](const std::string& l) { return l.rfind(job_id_ + " ", 0) == 0; });
    ASSERT_NE(row, all.end()) << listed.out;
    EXPECT_NE(row->find("finished"), std::string::npos) << *row;
    EXPECT_NE(row->find(std::to_string(source_rows) + "/~"), std::string::npos) << *row;
    EXPECT_NE(row->find(table_), std::string::npos) << *row;
    EXPECT_NE(row->find(" 4/4 "), std::string::npos) << *row;

    const auto document = shown();
    EXPECT_STREQ(document["state"].GetString(), "finished");
    EXPECT_EQ(document["rows_written"].GetUint64(), static_cast<std::uint64_t>(source_rows));
    EXPECT_EQ(document["live_leases"].GetUint64(), 0u);
    EXPECT_FALSE(document["written_at"].IsNull()) << "the time of the last page";
    ASSERT_EQ(document["ranges"].Size(), 4u);
    EXPECT_TRUE(document["ranges"][0]["lo"].IsNull()) << "the first range is open below";
    for (const auto& range : document["ranges"].GetArray()) {
        EXPECT_STREQ(range["state"].GetString(), "done");
        EXPECT_TRUE(range["checkpoint"].IsArray());
    }

    const CliRun again = run_rowpump(backfill_args());
    EXPECT_EQ(again.exit_code, 0) << again.describe();
    EXPECT_NE(again.err.find("already finished"), std::string::npos) << again.err;

    empty_queue();
    const CliRun reset = job("reset", {"--job-id", job_id_});
    ASSERT_EQ(reset.exit_code, 0) << reset.describe();
    EXPECT_NE(reset.out.find("reset job " + job_id_), std::string::npos) << reset.out;
    expect_refused(job("show", {"--job-id", job_id_}), "no job '" + job_id_ + "'");

    const CliRun rerun = run_rowpump(backfill_args());
    ASSERT_EQ(rerun.exit_code, 0) << rerun.describe();
    EXPECT_EQ(rerun.err.find("already finished"), std::string::npos) << rerun.err;
    expect_exactly_once(table_, queue_, job_id_);
}

TEST_P(JobCommandTest, DropIsRefusedWhileAnotherProcessHoldsALease) {
    CliProcess runner(backfill_args(300));  // 3000 rows at 300 rows/s: about 10 s
    ASSERT_TRUE(wait_until([&] { return stored_job().leased > 0 && !queued_ids(queue_).empty(); }, 20s)) << runner.describe();
    const auto running = shown();
    EXPECT_STREQ(running["state"].GetString(), "running");
    EXPECT_GT(running["live_leases"].GetUint64(), 0u);

    expect_refused(job("drop", {"--job-id", job_id_}), "is being run");
    expect_refused(job("reset", {"--job-id", job_id_}), "is being run");
    EXPECT_TRUE(stored_job().exists) << "a refused drop leaves the job";
    EXPECT_EQ(runner.poll(), std::nullopt) << "the run goes on";

    runner.signal(SIGINT);
    const auto code = runner.wait_for(30s);
    ASSERT_EQ(code, std::optional<int>(3)) << runner.describe();
    const std::uint64_t written = stored_job().rows_written;
    ASSERT_GT(written, 0u);
    ASSERT_LT(written, static_cast<std::uint64_t>(source_rows)) << "stopped half way";
    // The process is gone, so are its leases: the job is stopped, not running.
    ASSERT_TRUE(wait_until([&] { return job("show", {"--job-id", job_id_, "--json"}).out.find("\"stopped\"") != std::string::npos; }, 10s));
    expect_refused(job("reset", {"--job-id", job_id_}), "has not finished");

    const CliRun dropped = job("drop", {"--job-id", job_id_});
    ASSERT_EQ(dropped.exit_code, 0) << dropped.describe();
    EXPECT_NE(dropped.out.find(std::to_string(written) + " rows had been written"), std::string::npos) << dropped.out;
    EXPECT_FALSE(stored_job().exists);
}

TEST_P(JobCommandTest, DropForceTakesTheJobFromARunningProcess) {
    CliProcess runner(backfill_args(300));
    ASSERT_TRUE(wait_until([&] { return stored_job().leased > 0 && !queued_ids(queue_).empty(); }, 20s)) << runner.describe();
    const CliRun dropped = job("drop", {"--job-id", job_id_, "--force"});
    ASSERT_EQ(dropped.exit_code, 0) << dropped.describe();
    runner.signal(SIGINT);
    runner.wait_for(30s);
    // The run's next page was refused: no page of it recreated the job's state.
    EXPECT_FALSE(stored_job().exists) << runner.describe();
}

TEST_P(JobCommandTest, BadIdsMissingJobsAndSinksWithoutJobsGetOneLineAndExit2) {
    expect_refused(job("show", {"--job-id", "rp_test_no_such_job"}), "no job 'rp_test_no_such_job'");
    expect_refused(job("drop", {"--job-id", "rp_test_no_such_job"}), "no job 'rp_test_no_such_job'");
    expect_refused(job("show", {"--job-id", ""}), "--job-id");
    expect_refused(job("show", {"--job-id", std::string(192, 'x')}), "1 to 191 characters");
    expect_refused(job("show"), "--job-id");
    expect_refused(run_rowpump({"job", "list", "--sink", "stdout"}), "jobs are kept beside");
}

TEST_P(JobCommandTest, AJobFileNamesTheSinkAndTheJob) {
    ASSERT_EQ(run_rowpump(backfill_args()).exit_code, 0);
    const std::string path = temp_file("job.yaml");
    std::ofstream(path) << "source:\n  mysql: " << mysql_url_ << "\n  table: " << table_ << "\nsink:\n  uri: "
                        << sink_uri() << "\n  queue: '"
                        << queue_ << "'\njob_id: " << job_id_ << "\n";
    const CliRun shown_by_file = run_rowpump({"job", "show", path});
    ASSERT_EQ(shown_by_file.exit_code, 0) << shown_by_file.describe();
    EXPECT_NE(shown_by_file.out.find("job " + job_id_ + " in "), std::string::npos) << shown_by_file.out;
    EXPECT_NE(shown_by_file.out.find("finished: 4 of 4 ranges done"), std::string::npos) << shown_by_file.out;
    const CliRun reset = run_rowpump({"job", "reset", path});
    EXPECT_EQ(reset.exit_code, 0) << reset.describe();
    EXPECT_FALSE(stored_job().exists);
    std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Stores, JobCommandTest, ::testing::Values(Sink::redis, Sink::mysql), sink_name);

}  // namespace
}  // namespace rowpump::test
