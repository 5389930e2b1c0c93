// Exactly once with a job id (docs/DESIGN.md, "Delivery guarantees"), through the built CLI: `rowpump backfill
// --job-id J` is SIGKILLed at a random moment 20 times in a row, each following run resuming the job;
// a last run finishes it. Every source row must then be in the queue exactly once (Redis list and MySQL
// queue table alike), the job's checkpoints must add up to the table, and a further --resume must say
// the job had already finished. A resume with a changed definition, or of a job that does not exist, is
// refused with exit 2 and one error line, and writes nothing.
//
// The random delays come from a seed printed with every failure; ROWPUMP_TEST_SEED replays one.
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
#include <optional>
#include <random>
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

unsigned test_seed() {
    if (const char* seed = std::getenv("ROWPUMP_TEST_SEED"); seed && *seed) return static_cast<unsigned>(std::stoul(seed));
    return std::random_device{}();
}

class ExactlyOnceTest : public JobSinkTest, public ::testing::WithParamInterface<Sink> {
protected:
    ExactlyOnceTest() : JobSinkTest(GetParam(), "eo") {}

    // A queue of this test's sink, deleted at the end.
    std::string new_queue(const std::string& base) {
        queues_.push_back(queue_name(base));
        return queues_.back();
    }

    // `rows` rows with ids 3, 6, 9, ... (gaps, so ranges are not just row numbers), built by the
    // SEQUENCE engine.
    std::string numbered_table(const std::string& base, int rows) {
        const auto table =
            tables().create(base, "(id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, amount INT NOT NULL)");
        tables().execute(table, "INSERT INTO {t} SELECT seq * 3, CONCAT('row-', seq), seq % 1000 FROM seq_1_to_" +
                                    std::to_string(rows));
        return table;
    }

    std::vector<std::string> backfill_args(const std::string& table, const std::string& queue, double rate,
                                           const std::string& job_id) const {
        return {"backfill",      "--table",     table, "--sink",          sink_uri(), "--queue", queue,
                "--job-id",      job_id,        "--partitions", "4",      "--workers",  "2",       "--page-size",
                "200",           "--page-time-ms", "0", "--rate",         std::to_string(rate)};
    }

    bool queue_exists(const std::string& queue) {
        if (sink_ == Sink::redis) return redis_->command({"EXISTS", queue}).integer == 1;
        return mysql_table_exists(queue);
    }

    // Exit 2 and exactly one error line (log lines at other levels may come before it) that names `needle`.
    void expect_refused(CliProcess& run, const std::string& needle) {
        const auto ended = run.wait_for(30s);
        ASSERT_TRUE(ended) << "did not end within 30 s\n" << run.describe();
        EXPECT_EQ(*ended, 2) << run.describe();
        std::vector<std::string> errors;
        for (const auto& line : lines(run.err()))
            if (line.rfind("rowpump: error: ", 0) == 0) errors.push_back(line);
        ASSERT_EQ(errors.size(), 1u) << "one error line expected\n" << run.describe();
        EXPECT_NE(errors[0].find(needle), std::string::npos) << "the error should name '" << needle << "'\n"
                                                              << run.describe();
        EXPECT_EQ(errors[0].find("rowpump-local"), std::string::npos) << "the password leaked\n" << run.describe();
    }

    void clean_up() override {
        JobSinkTest::clean_up();
        for (const auto& queue : queues_) delete_queue(queue);
        delete_job(job_id_ + "_unknown");
    }

    std::vector<std::string> queues_;
};

// 20 runs killed at random moments, then one to the end. The rate is set so the 20 killed runs, each
// writing for its delay minus its start-up, cover most of the table but not all of it: every kill lands
// in the middle of the job (a run that finished before its kill would test nothing), and the last run
// still has pages to write.
constexpr int source_rows = 20000;
constexpr int kills = 20;
constexpr double kill_test_rate = 2000;  // rows per second over both workers

TEST_P(ExactlyOnceTest, TwentyKillsAndResumesWriteEveryRowOnce) {
    const unsigned seed = test_seed();
    SCOPED_TRACE("ROWPUMP_TEST_SEED=" + std::to_string(seed));
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> delay_ms(30, 900);
    const auto table = numbered_table("eo_kill", source_rows);
    const auto args = backfill_args(table, queue_, kill_test_rate, job_id_);

    int killed_mid_job = 0;
    for (int run = 0; run < kills; ++run) {
        // A run killed before it created the job leaves nothing to resume: the next one starts it.
        auto argv = args;
        if (stored_job(job_id_).exists) argv.push_back("--resume");
        CliProcess child(argv);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
        if (const auto ended = child.poll()) {
            ASSERT_EQ(*ended, 0) << "run " << run << " ended by itself before its kill, and not with 0\n"
                                 << child.describe();
            continue;
        }
        EXPECT_EQ(child.kill(), -SIGKILL);
        ++killed_mid_job;
    }
    const auto before_last = stored_job(job_id_);
    ASSERT_TRUE(before_last.exists) << "20 runs never got as far as creating the job";

    auto last_args = args;
    last_args.push_back("--resume");
    CliProcess last(last_args);
    const auto ended = last.wait_for(40s);
    ASSERT_TRUE(ended) << "the last run did not finish within 40 s\n" << last.describe();
    ASSERT_EQ(*ended, 0) << last.describe();
    expect_exactly_once(table, queue_, job_id_);

    CliProcess again(last_args);
    const auto again_ended = again.wait_for(30s);
    ASSERT_TRUE(again_ended) << again.describe();
    EXPECT_EQ(*again_ended, 0) << again.describe();
    EXPECT_NE(again.err().find("already finished"), std::string::npos) << again.describe();
    EXPECT_EQ(queued_ids(queue_).size(), static_cast<std::size_t>(source_rows)) << "a finished job wrote again";

    std::printf("[ info     ] %d of %d runs killed mid-job; %llu of %d rows were written before the last run\n",
                killed_mid_job, kills, static_cast<unsigned long long>(before_last.rows_written), source_rows);
    RecordProperty("killed_mid_job", killed_mid_job);
}

// A job stopped halfway (SIGINT: exit 3, resumable) and then resumed with another definition, or a job
// id nobody started: refused before anything is written, and the original job still resumes fine.
TEST_P(ExactlyOnceTest, ResumeWithAnotherDefinitionOrUnknownJobIsRefused) {
    constexpr int rows = 3000;
    const auto table = numbered_table("eo_def", rows);
    const auto other_table = numbered_table("eo_def_other", 10);
    const auto args = backfill_args(table, queue_, 1500, job_id_);

    {
        CliProcess first(args);
        const auto deadline = Clock::now() + 20s;
        while (stored_job(job_id_).rows_written == 0 && !first.poll() && Clock::now() < deadline)
            std::this_thread::sleep_for(20ms);
        ASSERT_FALSE(first.poll()) << "the first run ended before it could be interrupted\n" << first.describe();
        ASSERT_GT(stored_job(job_id_).rows_written, 0u) << "no page written within 20 s\n" << first.describe();
        first.signal(SIGINT);
        const auto ended = first.wait_for(30s);
        ASSERT_TRUE(ended) << "SIGINT did not stop the run within 30 s\n" << first.describe();
        ASSERT_EQ(*ended, 3) << "an interrupted job exits 3\n" << first.describe();
    }
    const auto stopped = stored_job(job_id_);
    ASSERT_LT(stopped.ranges_done, stopped.ranges) << "the job finished before the interrupt: nothing to resume";
    const auto queued_before = queued_ids(queue_).size();

    const std::string other_queue = new_queue("other");
    const auto with = [&](const std::string& flag, const std::string& value) {
        auto changed = args;
        changed.push_back("--resume");
        const auto at = std::find(changed.begin(), changed.end(), flag);
        if (at == changed.end()) changed.insert(changed.end(), {flag, value});
        else *(at + 1) = value;
        return changed;
    };
    for (const auto& changed : {with("--columns", "id,name"), with("--table", other_table), with("--queue", other_queue)}) {
        CliProcess refused(changed);
        expect_refused(refused, job_id_);
        if (HasFatalFailure()) return;
    }
    EXPECT_EQ(queued_ids(queue_).size(), queued_before) << "a refused resume wrote to the queue";
    EXPECT_FALSE(queue_exists(other_queue)) << "a refused resume (exit 2: nothing written) created queue " << other_queue;
    const auto after_refusals = stored_job(job_id_);
    EXPECT_EQ(after_refusals.rows_written, stopped.rows_written) << "a refused resume moved a checkpoint";

    const std::string unknown_queue = new_queue("unknown");
    auto unknown = backfill_args(table, unknown_queue, 1500, job_id_ + "_unknown");
    unknown.push_back("--resume");
    {
        CliProcess refused(unknown);
        expect_refused(refused, job_id_ + "_unknown");
        if (HasFatalFailure()) return;
    }
    EXPECT_FALSE(stored_job(job_id_ + "_unknown").exists) << "resuming an unknown job created it";
    EXPECT_FALSE(queue_exists(unknown_queue)) << "a refused resume (exit 2: nothing written) created queue "
                                              << unknown_queue;

    auto resume = args;
    resume.push_back("--resume");
    CliProcess finish(resume);
    const auto ended = finish.wait_for(40s);
    ASSERT_TRUE(ended) << finish.describe();
    ASSERT_EQ(*ended, 0) << finish.describe();
    expect_exactly_once(table, queue_, job_id_);
}

INSTANTIATE_TEST_SUITE_P(Sinks, ExactlyOnceTest, ::testing::Values(Sink::redis, Sink::mysql), sink_name);

}  // namespace
}  // namespace rowpump::test
