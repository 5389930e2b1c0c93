// The sink and queue-source grammar against the real servers: typed targets (SinkSpec::redis,
// SinkSpec::mysql), which an embedding program fills from its own settings without writing a URL, carry a
// job with a job id (the sink and its job store both open them), and `queue --source` takes every scheme
// a sink takes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "rowpump/job.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::test {
namespace {

constexpr std::uint64_t source_rows = 500;

class TypedSinkTest : public MySqlRedisTest {
protected:
    void TearDown() override {
        if (tables_) {
            for (const char* table : {"rowpump_job_ranges", "rowpump_jobs"})
                if (!tables()
                         .rows("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
                               "TABLE_NAME = ?",
                               {std::string(table)})
                         .empty())
                    tables().connection().execute(std::string("DELETE FROM ") + table + " WHERE job_id = ?", {job_id_});
        }
        MySqlRedisTest::TearDown();
    }

    JobSpec job_from(const std::string& table) const {
        JobSpec spec;
        spec.mysql = options_;
        spec.read.table = table;
        spec.partitions = 2;
        spec.workers = 2;
        spec.job_id = job_id_;
        return spec;
    }

    std::string source_table() {
        const std::string table = tables().create("typed_src", "(id INT PRIMARY KEY)");
        tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_" + std::to_string(source_rows));
        return table;
    }

    std::string queue_table(const std::string& base) {
        const std::string ddl = mysql::queue_table_ddl("x");
        return tables().create(base, ddl.substr(ddl.find('(')));
    }
};

TEST_F(TypedSinkTest, AJobWithAJobIdWritesToATypedRedisTarget) {
    JobSpec spec = job_from(source_table());
    spec.sink = SinkSpec::redis(RedisOptions::from_url(redis_url_), queue_);
    const JobSummary summary = run_job(spec);
    EXPECT_EQ(summary.rows_written, source_rows);
    EXPECT_EQ(redis_->command({"LLEN", queue_}).integer, static_cast<long long>(source_rows));
    EXPECT_EQ(redis_->command({"EXISTS", "rowpump:job:" + job_id_ + ":meta"}).integer, 1)
        << "the job's checkpoints go to the typed target's server";
}

TEST_F(TypedSinkTest, AJobWithAJobIdWritesToATypedMySqlTarget) {
    JobSpec spec = job_from(source_table());
    const std::string queue = queue_table("typed_q");
    spec.sink = SinkSpec::mysql(options_, queue);
    const JobSummary summary = run_job(spec);
    EXPECT_EQ(summary.rows_written, source_rows);
    EXPECT_EQ(tables().count(queue), source_rows);
    EXPECT_EQ(tables().rows("SELECT CAST(ranges AS CHAR) FROM rowpump_jobs WHERE job_id = ?", {job_id_}).size(), 1u)
        << "the job's checkpoints go to the typed target's database";
}

// `queue --source` refused mariadb://, which sinks, job stores and --mysql take.
TEST_F(TypedSinkTest, QueueSourcesTakeTheMariadbScheme) {
    const std::string queue = queue_table("typed_stats_q");
    tables().execute(queue, "INSERT INTO {t} (payload, available_at) VALUES ('t1', NOW(6)), ('t2', NOW(6))");
    std::string url = mysql_url_for_command_line();
    ASSERT_EQ(url.rfind("mysql://", 0), 0u) << url;
    url.replace(0, 5, "mariadb");
    const CliRun run = run_rowpump({"queue", "stats", "--source", url, "--queue", queue, "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_NE(run.out.find("\"ready\": 2"), std::string::npos) << run.out;
}

TEST(TargetGrammarCliTest, EveryCommandRefusesAnUnknownSchemeWithTheSameForms) {
    const CliRun stats = run_rowpump({"queue", "stats", "--source", "kafka://u:hunter2@broker/x", "--queue", "q"});
    EXPECT_EQ(stats.exit_code, 2) << stats.describe();
    // (main masks anything shaped like user:pass@ in what it prints, the forms' placeholders too.)
    EXPECT_NE(stats.err.find("unsupported queue source 'kafka://u:***@broker/x': expected redis://"), std::string::npos)
        << stats.describe();
    EXPECT_NE(stats.err.find(" or mysql://"), std::string::npos) << stats.describe();
    EXPECT_EQ(stats.err.find("hunter2"), std::string::npos) << stats.describe();
}

}  // namespace
}  // namespace rowpump::test
