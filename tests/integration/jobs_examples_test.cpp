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
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"
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

constexpr std::uint64_t sample_rows = 3000;

// sample_orders of scripts/sample_table.sql, with fewer rows: its column list and options, and its INSERT
// with {t} for the table, cut out of the script itself.
struct SampleOrders {
    std::string definition;
    std::string rows;
};

SampleOrders sample_orders_sql() {
    std::ifstream in(std::filesystem::path(ROWPUMP_SOURCE_DIR) / "scripts" / "sample_table.sql");
    const std::string script((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string create = "CREATE TABLE sample_orders ";
    const std::string insert = "INSERT INTO sample_orders ";
    const std::string all_rows = "seq_1_to_300000";
    const auto create_at = script.find(create);
    const auto insert_at = script.find(insert);
    const auto all_rows_at = script.find(all_rows, insert_at);
    if (create_at == std::string::npos || insert_at == std::string::npos || all_rows_at == std::string::npos) {
        ADD_FAILURE() << "scripts/sample_table.sql no longer holds '" << create << "', '" << insert << "' and '"
                      << all_rows << "'";
        return {};
    }
    const auto definition_at = create_at + create.size();
    SampleOrders sql;
    sql.definition = script.substr(definition_at, script.find(';', definition_at) - definition_at);
    sql.rows = "INSERT INTO {t} " + script.substr(insert_at + insert.size(), all_rows_at - insert_at - insert.size()) +
               "seq_1_to_" + std::to_string(sample_rows);
    return sql;
}

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

class JobsExamplesTest : public Prepared<MySqlTest>, public ::testing::WithParamInterface<std::string> {
protected:
    void prepare() override {
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
    const SampleOrders sample = sample_orders_sql();
    const std::string table = tables().create("jobs", sample.definition);
    tables().execute(table, sample.rows);
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
