// Every example in jobs/ runs against the local servers, through the library as `rowpump run` does it
// (load_job + run_job), on a small copy of the quick start's sample_orders table. The files are globbed
// at run time, so a new example is tested as soon as it is added. Each run's table, queue keys and queue
// table are named rp_test_... / rp_test:... with the process id, and are dropped at the end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "integration/redis_fixture.hpp"
#include "mysql/connection.hpp"
#include "redis/connection.hpp"
#include "rowpump/job.hpp"

namespace rowpump::test {
namespace {

const std::filesystem::path jobs_dir = std::filesystem::path(ROWPUMP_SOURCE_DIR) / "jobs";

std::vector<std::string> example_jobs() {
    std::vector<std::string> out;
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(jobs_dir, ignored))
        if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// sample_orders of scripts/sample_table.sql, with fewer rows.
const char* const sample_orders_definition =
    "(id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL, status VARCHAR(16), "
    "amount DECIMAL(12,2), note VARCHAR(200), created_at DATETIME(6), KEY idx_customer (customer_id)) "
    "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";
const char* const sample_orders_rows = R"sql(
INSERT INTO {t} (id, customer_id, status, amount, note, created_at)
SELECT seq,
       1 + (seq * 7919) % 50000,
       ELT(1 + seq % 5, 'new', 'paid', 'shipped', 'delivered', 'cancelled'),
       ((seq * 104729) % 1000000) / 100,
       CASE seq % 6
         WHEN 0 THEN NULL
         WHEN 1 THEN CONCAT('order ', seq)
         WHEN 2 THEN CONCAT('Zoë''s "rush" order #', seq, ' — café crème')
         WHEN 3 THEN CONCAT('注文 ', seq, ' 🚚 deliver to O''Brien')
         WHEN 4 THEN CONCAT('path C:\\orders\\', seq, ', tab\there')
         ELSE CONCAT('naïve façade ', seq, ' « quoted » ✓')
       END,
       TIMESTAMP'2024-01-01 00:00:00' + INTERVAL (seq * 86400123) MICROSECOND
FROM seq_1_to_3000)sql";
constexpr std::uint64_t sample_rows = 3000;

enum class SinkKind { redis, mysql, file };

SinkKind kind_of(const std::string& uri) {
    if (uri.starts_with("redis://")) return SinkKind::redis;
    if (uri.starts_with("mysql://") || uri.starts_with("mariadb://")) return SinkKind::mysql;
    return SinkKind::file;
}

// Whatever one example filled: removed however the test ends.
class Filled {
public:
    Filled(TestTables& tables, std::optional<redis::Connection>& redis) : tables_(tables), redis_(redis) {}
    ~Filled() {
        try {
            for (const auto& pattern : redis_patterns_)
                if (redis_) delete_keys(*redis_, pattern);
            for (const auto& table : tables_to_drop_)
                tables_.connection().execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(table));
            for (const auto& file : files_) std::filesystem::remove(file);
        } catch (const std::exception& error) {
            ADD_FAILURE() << "cleanup failed: " << error.what();
        }
    }
    Filled(const Filled&) = delete;
    Filled& operator=(const Filled&) = delete;

    void redis_keys(const std::string& pattern) { redis_patterns_.push_back(pattern); }
    void table(const std::string& name) { tables_to_drop_.push_back(name); }
    void file(const std::string& path) { files_.push_back(path); }

private:
    TestTables& tables_;
    std::optional<redis::Connection>& redis_;
    std::vector<std::string> redis_patterns_;
    std::vector<std::string> tables_to_drop_;
    std::vector<std::string> files_;
};

class JobsExamplesTest : public MySqlTest, public ::testing::WithParamInterface<std::string> {
protected:
    void SetUp() override {
        MySqlTest::SetUp();
        if (HasFatalFailure()) return;
        auto url = redis_url_from_env();
        if (!url) FAIL() << start_redis_hint;
        redis_.emplace(RedisOptions::from_url(*url));
    }

    std::uint64_t scalar(const std::string& sql) {
        auto result = tables().connection().query(sql);
        EXPECT_TRUE(result.next());
        return result.uint64(1);
    }

    // Tasks now in the queue: the ready list, every priority list and the delayed set.
    std::uint64_t redis_tasks(const JobSpec& spec) {
        auto count = [&](std::initializer_list<std::string_view> command) {
            return static_cast<std::uint64_t>(redis_->command(command).integer);
        };
        std::uint64_t total = count({"LLEN", spec.sink.queue}) + count({"ZCARD", spec.sink.queue + ":delayed"});
        for (const auto& level : spec.route.levels) total += count({"LLEN", spec.sink.queue + ":p:" + level.name});
        return total;
    }

    std::optional<redis::Connection> redis_;
};

TEST_P(JobsExamplesTest, RunsAndWritesEveryRow) {
    const std::string path = GetParam();
    const std::string stem = stem_of(path);
    const std::string pid = std::to_string(::getpid());
    const std::string table = tables().create("jobs", sample_orders_definition);
    tables().execute(table, sample_orders_rows);
    ASSERT_EQ(tables().count(table), sample_rows);

    // The example as written, on the test table; then its queue (and job id) moved to test names.
    std::vector<std::string> overrides{"source.table=" + table};
    const JobSpec as_written = load_job(path, overrides);
    Filled filled(tables(), redis_);
    const SinkKind kind = kind_of(as_written.sink.uri);
    std::string queue;
    if (kind == SinkKind::redis) {
        queue = "rp_test:jobs:" + stem + ":" + pid;
        filled.redis_keys(queue);
        filled.redis_keys(queue + ":*");
        overrides.push_back("sink.queue=" + queue);
    } else if (kind == SinkKind::mysql) {
        queue = "rp_test_jobq_" + stem + "_" + pid;
        filled.table(queue);
        overrides.push_back("sink.queue=" + queue);
    } else {
        queue = (std::filesystem::temp_directory_path() / ("rp_test_jobs_" + stem + "_" + pid + ".out")).string();
        filled.file(queue);
        overrides.push_back("sink.uri=file:" + queue);
    }
    if (!as_written.job_id.empty()) {
        const std::string job_id = "rp_test_jobs_" + stem + "_" + pid;
        filled.redis_keys("rowpump:job:" + job_id + ":*");
        overrides.push_back("job_id=" + job_id);
    }
    const JobSpec spec = load_job(path, overrides);

    const std::string quoted = mysql::quote_identifier(table);
    const std::uint64_t expected =
        scalar("SELECT COUNT(*) FROM " + quoted + (spec.read.where.empty() ? "" : " WHERE (" + spec.read.where + ")"));
    ASSERT_GT(expected, 0u) << "the example's filter matches no row of the sample table";

    const JobSummary summary = run_job(spec);
    EXPECT_FALSE(summary.interrupted);
    EXPECT_EQ(summary.rows_read, expected);
    EXPECT_EQ(summary.rows_written, expected);
    if (kind == SinkKind::redis) {
        EXPECT_EQ(redis_tasks(spec), expected);
    }
    if (kind == SinkKind::mysql) {
        EXPECT_EQ(scalar("SELECT COUNT(*) FROM " + mysql::quote_identifier(queue)), expected);
    }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = stem_of(info.param);
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Examples, JobsExamplesTest, ::testing::ValuesIn(example_jobs()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(JobsExamplesTest);

TEST(JobsExamples, TheDocumentedExamplesExist) {
    const auto jobs = example_jobs();
    for (const char* name : {"redis_backfill.yaml", "mysql_queue_backfill.yaml", "priority_routing.yaml",
                             "delayed_tasks.yaml", "filtered_backfill.yaml"})
        EXPECT_NE(std::find(jobs.begin(), jobs.end(), (jobs_dir / name).string()), jobs.end()) << name;
}

}  // namespace
}  // namespace rowpump::test
