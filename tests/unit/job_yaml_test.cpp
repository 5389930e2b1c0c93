// load_job: a job file maps to the JobSpec it describes, and every kind of mistake is a ConfigError at
// the right file:line:column with a message that says what is wrong and what is expected. No server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "job/env_expand.hpp"
#include "job/suggest.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

const std::filesystem::path testdata = std::filesystem::path(__FILE__).parent_path() / "testdata";

std::string sample(const std::string& name) { return (testdata / name).string(); }

// A job file written for one test and removed after it.
class TempJob : public test::TempFile {
public:
    explicit TempJob(const std::string& text) : TempFile(text, ".yaml") {}
};

// The ConfigError load_job throws; fails the test when it throws nothing or something else.
ConfigError config_error(const std::string& path, const std::vector<std::string>& overrides = {}) {
    try {
        load_job(path, overrides);
    } catch (const ConfigError& error) {
        return error;
    } catch (const std::exception& error) {
        ADD_FAILURE() << "expected a ConfigError, got: " << error.what();
        return ConfigError(path, -1, -1, "wrong exception");
    }
    ADD_FAILURE() << "expected a ConfigError for " << path << ", but the job loaded";
    return ConfigError(path, -1, -1, "no exception");
}

void expect_error_at(const std::string& path, int line, int column, const std::string& message,
                     const std::vector<std::string>& overrides = {}) {
    const ConfigError error = config_error(path, overrides);
    EXPECT_EQ(error.file(), path);
    EXPECT_EQ(error.line(), line);
    EXPECT_EQ(error.column(), column);
    EXPECT_EQ(std::string(error.what()),
              path + (line > 0 ? ":" + std::to_string(line) + ":" + std::to_string(column) : std::string()) + ": " +
                  message);
    EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
}

// The same for a job file of `text`, written for the check and removed after it.
void expect_job_error(const std::string& text, int line, int column, const std::string& message) {
    TempJob job(text);
    expect_error_at(job.path(), line, column, message);
}

const char* const minimal_source = "source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\n";

class JobYamlTest : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("ROWPUMP_TEST_JOB_MYSQL_URL", "mysql://app:s3cret@db.example:3307/shop", 1);
        ::unsetenv("ROWPUMP_TEST_UNSET_VARIABLE");
    }
    void TearDown() override { ::unsetenv("ROWPUMP_TEST_JOB_MYSQL_URL"); }
};

TEST_F(JobYamlTest, ValidFileMapsToJobSpec) {
    const JobSpec spec = load_job(sample("valid_job.yaml"));
    EXPECT_EQ(spec.job_id, "orders-backfill");
    EXPECT_FALSE(spec.resume);
    EXPECT_EQ(spec.mysql.host, "db.example");
    EXPECT_EQ(spec.mysql.port, 3307u);
    EXPECT_EQ(spec.mysql.user, "app");
    EXPECT_EQ(spec.mysql.password, "s3cret");
    EXPECT_EQ(spec.mysql.database, "shop");
    EXPECT_EQ(spec.read.table, "shop.orders");
    EXPECT_EQ(spec.read.key, (std::vector<std::string>{"customer_id", "id"}));
    EXPECT_EQ(spec.read.columns, (std::vector<std::string>{"id", "customer_id", "amount", "remind_at"}));
    EXPECT_EQ(spec.read.where, "status = 'paid'");
    EXPECT_EQ(spec.read.strategy, PagingStrategy::deferred_join);
    EXPECT_EQ(spec.read.null_keys, NullKeys::read_first);
    EXPECT_EQ(spec.read.page_size, 5000u);
    EXPECT_EQ(spec.read.target_page_time, std::chrono::milliseconds(100));
    EXPECT_EQ(spec.read.max_page_size, 40000u);
    EXPECT_EQ(spec.read.min_page_size, 100u);
    EXPECT_EQ(spec.partitions, 8u);
    EXPECT_EQ(spec.partition_strategy, PartitionStrategy::minmax);
    EXPECT_EQ(spec.workers, 3u);
    EXPECT_EQ(spec.sink.uri, "redis://127.0.0.1:6479/2");
    EXPECT_EQ(spec.sink.queue, "orders");
    EXPECT_EQ(spec.sink.push, PushSide::left);
    EXPECT_EQ(spec.format, Format::csv);
    EXPECT_EQ(spec.route.priority_column, "amount");
    ASSERT_EQ(spec.route.levels.size(), 3u);
    EXPECT_EQ(spec.route.levels[0].name, "high");
    EXPECT_EQ(spec.route.levels[0].min, 1000);
    EXPECT_EQ(spec.route.levels[1].name, "mid");
    EXPECT_EQ(spec.route.levels[1].min, 100.5);
    EXPECT_EQ(spec.route.levels[2].name, "low");
    EXPECT_EQ(spec.route.delay, std::chrono::milliseconds(0));
    EXPECT_TRUE(spec.route.due_column.empty());
    EXPECT_EQ(spec.rate, 2500.5);
    EXPECT_EQ(spec.high_water, 100000u);
    EXPECT_EQ(spec.lease_timeout, std::chrono::seconds(90));
}

TEST_F(JobYamlTest, DefaultsOfAMinimalFile) {
    const JobSpec spec = load_job(sample("minimal_job.yaml"));
    const JobSpec defaults;
    EXPECT_TRUE(spec.job_id.empty());
    EXPECT_EQ(spec.read.table, "orders");
    EXPECT_TRUE(spec.read.key.empty());
    EXPECT_TRUE(spec.read.columns.empty());
    EXPECT_TRUE(spec.read.where.empty());
    EXPECT_EQ(spec.read.strategy, PagingStrategy::keyset);
    EXPECT_EQ(spec.read.null_keys, NullKeys::refuse);
    EXPECT_EQ(spec.read.page_size, defaults.read.page_size);
    EXPECT_EQ(spec.read.target_page_time, std::chrono::milliseconds(250));  // as `rowpump backfill`
    EXPECT_EQ(spec.read.max_page_size, defaults.read.max_page_size);
    EXPECT_EQ(spec.partitions, 0u);
    EXPECT_EQ(spec.partition_strategy, PartitionStrategy::balanced);
    EXPECT_EQ(spec.workers, 0u);
    EXPECT_EQ(spec.sink.uri, "stdout");
    EXPECT_TRUE(spec.sink.queue.empty());
    EXPECT_EQ(spec.format, Format::json);
    EXPECT_EQ(spec.sink.push, PushSide::right);
    EXPECT_TRUE(spec.route.levels.empty());
    EXPECT_EQ(spec.rate, 0);
    EXPECT_EQ(spec.high_water, 0u);
    EXPECT_EQ(spec.lease_timeout, defaults.lease_timeout);
}

TEST_F(JobYamlTest, StringFormsOfKeyAndLevels) {
    TempJob job(std::string(minimal_source) +
                "  key: created_at\n"
                "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: q\n"
                "  priority:\n    column: amount\n    levels: \"high:100,mid:10,low\"\n"
                "  delay: 1.5\n");
    const JobSpec spec = load_job(job.path());
    EXPECT_EQ(spec.read.key, std::vector<std::string>{"created_at"});
    ASSERT_EQ(spec.route.levels.size(), 3u);
    EXPECT_EQ(spec.route.levels[1].name, "mid");
    EXPECT_EQ(spec.route.levels[1].min, 10);
    EXPECT_EQ(spec.route.delay, std::chrono::milliseconds(1500));
}

TEST_F(JobYamlTest, PageSizeAboveTheDefaultMaximumRaisesIt) {
    const JobSpec spec = load_job(sample("minimal_job.yaml"), {"source.page_size=80000"});
    EXPECT_EQ(spec.read.page_size, 80000u);
    EXPECT_EQ(spec.read.max_page_size, 80000u);
}

TEST_F(JobYamlTest, UnknownKeySuggestsTheClosest) {
    expect_error_at(sample("unknown_key.yaml"), 4, 3, "unknown key 'colums' in source, did you mean 'columns'?");
}

TEST_F(JobYamlTest, UnknownKeyWithoutNearMissListsTheKeys) {
    expect_job_error(std::string(minimal_source) + "sink:\n  uri: stdout\nextra_stuff: 1\n", 6, 1,
                     "unknown key 'extra_stuff' in the job file; expected one of: job_id, source, partitions, "
                     "workers, sink, limits, lease_timeout, follow, throttle, progress_interval");
}

TEST_F(JobYamlTest, UnknownTopLevelKeySuggests) {
    expect_job_error(std::string(minimal_source) + "sinks:\n  uri: stdout\n",
                     4, 1, "unknown key 'sinks' in the job file, did you mean 'sink'?");
}

TEST_F(JobYamlTest, WrongTypeSaysWhatWasExpected) {
    expect_error_at(sample("wrong_type.yaml"), 4, 14,
                    "source.page_size: expected a whole number from 1 to 1000000, got 'abc'");
}

TEST_F(JobYamlTest, WrongTypesOfOtherFields) {
    expect_job_error(std::string(minimal_source) + "sink:\n  uri: stdout\nworkers: [2]\n",
                     6, 10, "workers: expected a single value, got a list");
    expect_job_error(std::string(minimal_source) + "sink:\n  uri: stdout\nlimits:\n  rate: -5\n",
                     7, 9, "limits.rate: expected 0 or a number from 1 to 1000000000, got '-5'");
    expect_job_error(std::string(minimal_source) + "sink:\n  uri: stdout\nworkers: 2.5\n",
                     6, 10, "workers: expected a whole number from 1 to 256, got '2.5'");
    expect_job_error(std::string(minimal_source) + "sink: stdout\n", 4, 7,
                     "sink: expected a map with the keys uri, queue, format, push, priority, delay, due_column, "
                     "overwrite, job_class, task, sidekiq_timestamps, sidekiq_retry, sidekiq_dead, sidekiq_fields, "
                     "sidekiq_tags, celery_expires, celery_kwargs, routing_key, celery_priority, celery_priority_column, job_name, bullmq_job_id, "
                     "bullmq_prefix, "
                     "template, big_numbers, json_columns, "
                     "csv_null, list_key, "
                     "delayed_key, delay_score, delayed_members, state_prefix, redis_wait, stream_maxlen, shards; "
                     "got 'stdout'");
    expect_job_error(std::string(minimal_source) + "  key: {a: 1}\nsink:\n  uri: stdout\n",
                     4, 8, "source.key: expected a name or a list of names, got a map");
}

// Every numeric field is checked for sign, range and NaN, with the field's position in the error.
TEST_F(JobYamlTest, BadNumbersAreConfigErrorsAtTheirField) {
    const std::string head = std::string(minimal_source);
    const std::string sink = "sink:\n  uri: stdout\n";
    const struct {
        std::string text;
        int line, column;
        std::string message;
    } cases[] = {
        {head + sink + "partitions:\n  count: -1\n", 7, 10,
         "partitions.count: expected a whole number from 1 to 1000000, got '-1'"},
        {head + sink + "partitions:\n  count: 99999999999999999999999\n", 7, 10,
         "partitions.count: expected a whole number from 1 to 1000000, got '99999999999999999999999'"},
        {head + sink + "partitions:\n  count: 0\n", 7, 10,
         "partitions.count: expected a whole number from 1 to 1000000, got '0'"},
        {head + sink + "limits:\n  rate: nan\n", 7, 9, "limits.rate: expected 0 or a number from 1 to 1000000000, got 'nan'"},
        {head + sink + "limits:\n  rate: .inf\n", 7, 9, "limits.rate: expected 0 or a number from 1 to 1000000000, got '.inf'"},
        {head + sink + "limits:\n  high_water: -1\n", 7, 15,
         "limits.high_water: expected a whole number, got '-1'"},
        {head + "sink:\n  uri: stdout\n  delay: nan\n", 6, 10,
         "sink.delay: expected a number from 0 to 315360000, got 'nan'"},
        {head + "sink:\n  uri: stdout\n  delay: 1e300\n", 6, 10,
         "sink.delay: expected a number from 0 to 315360000, got '1e300'"},
        {head + "  page_size: 5000\n  max_page_size: 10\n" + sink, 5, 18,
         "source.max_page_size: max_page_size 10 is below page_size 5000: expected at least page_size"},
        {head + "  page_time_ms: -1\n" + sink, 4, 17,
         "source.page_time_ms: expected a whole number from 0 to 3600000, got '-1'"},
        {head + sink + "lease_timeout: -1\n", 6, 16,
         "lease_timeout: expected a whole number from 1 to 86400, got '-1'"},
    };
    for (const auto& bad : cases) {
        SCOPED_TRACE(bad.text);
        expect_job_error(bad.text, bad.line, bad.column, bad.message);
    }
}

TEST_F(JobYamlTest, PriorityThresholdThatIsNotANumberIsAConfigError) {
    expect_job_error(std::string(minimal_source) +
                     "sink:\n  uri: stdout\n  priority:\n    column: amount\n    levels: \"high:nan,low\"\n", 8, 13,
                     "sink.priority.levels: bad threshold in priority level 'high:nan': expected name:number");
}

// The filter stays one expression inside the parentheses rowpump puts around it.
TEST_F(JobYamlTest, WhereThatLeavesItsParenthesesIsAConfigError) {
    expect_job_error(std::string(minimal_source) + "  where: \"id<3) OR (1=1\"\nsink:\n  uri: stdout\n", 4, 10,
                     "source.where: unbalanced ')' at character 5: it closes a parenthesis the condition did not "
                     "open; give one condition, e.g. where: \"a < 3 OR b = 1\"");
    {
        TempJob job(std::string(minimal_source) + "  where: \"id = 1 -- the rest\"\nsink:\n  uri: stdout\n");
        const ConfigError error = config_error(job.path());
        EXPECT_EQ(error.line(), 4);
        EXPECT_NE(std::string(error.what()).find("source.where: a comment at character 8 runs to the end"),
                  std::string::npos)
            << error.what();
    }
    {
        TempJob job(std::string(minimal_source) + "sink:\n  uri: stdout\n");
        const ConfigError error = config_error(job.path(), {"source.where=a = 1; DROP TABLE t"});
        EXPECT_EQ(std::string(error.what()),
                  job.path() + ": --set source.where=a = 1; DROP TABLE t: ';' at character 6: the condition must be "
                               "one expression, not statements; give one condition, e.g. where: \"a < 3 OR b = 1\"");
    }
    {
        TempJob job(std::string(minimal_source) +
                    "  where: \"(a = ')' OR b = 2) AND c <> '('\"\nsink:\n  uri: stdout\n");
        EXPECT_EQ(load_job(job.path()).read.where, "(a = ')' OR b = 2) AND c <> '('");
    }
}

TEST_F(JobYamlTest, UnknownChoiceSuggestsTheClosest) {
    expect_job_error(std::string(minimal_source) + "  strategy: keyst\nsink:\n  uri: stdout\n", 4, 13,
                     "source.strategy: expected one of keyset, deferred-join, id-in, offset, got 'keyst' "
                     "(did you mean 'keyset'?)");
}

TEST_F(JobYamlTest, MissingRequiredField) {
    expect_error_at(sample("missing_table.yaml"), 2, 3,
                    "missing key 'table' in source: the table to read, as name or schema.name");
}

TEST_F(JobYamlTest, MissingSectionAndQueue) {
    expect_job_error(minimal_source,
                     1, 1, "missing key 'sink' in the job file: where rows go: sink: {uri: URI, queue: NAME}");
    expect_job_error(std::string(minimal_source) + "sink:\n  uri: redis://127.0.0.1:6379/0\n", 5, 3,
                     "missing key 'queue' in sink: the Redis list name, also the prefix of its other keys");
    {
        TempJob job(std::string(minimal_source) + "  page_size:\nsink:\n  uri: stdout\n");
        const JobSpec spec = load_job(job.path());  // an empty value is the default
        EXPECT_EQ(spec.read.page_size, ReadSpec{}.page_size);
    }
}

TEST_F(JobYamlTest, SyntaxErrorHasYamlPosition) {
    expect_error_at(sample("syntax_error.yaml"), 5, 5, "YAML syntax error: end of sequence flow not found");
}

TEST_F(JobYamlTest, DuplicateKeyIsAnError) {
    expect_error_at(sample("duplicate_key.yaml"), 5, 3,
                    "duplicate key 'table' in source (first given at line 3): keep only one");
}

TEST_F(JobYamlTest, SecondDocumentIsAnErrorAtItsSeparator) {
    expect_error_at(sample("two_documents.yaml"), 6, 1,
                    "a second YAML document starts here: a job file holds one job; remove the '---' and what "
                    "follows, or put that job in a file of its own");
    const TempJob empty_second("---\n" + std::string(minimal_source) + "sink:\n  uri: stdout\n---\n");
    expect_error_at(empty_second.path(), 7, 1,
                    "a second YAML document starts here: a job file holds one job; remove the '---' and what "
                    "follows, or put that job in a file of its own");
}

TEST_F(JobYamlTest, FileSinkOverwritesOnlyWhenTold) {
    const TempJob told(std::string(minimal_source) + "sink:\n  uri: file:/tmp/out.ndjson\n  overwrite: true\n");
    EXPECT_TRUE(load_job(told.path()).sink.overwrite);
    const TempJob silent(std::string(minimal_source) + "sink:\n  uri: file:/tmp/out.ndjson\n");
    EXPECT_FALSE(load_job(silent.path()).sink.overwrite);
    const TempJob redis(std::string(minimal_source) +
                        "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: q\n  overwrite: true\n");
    expect_error_at(redis.path(), 7, 14,
                    "sink.overwrite replaces an existing file:PATH sink, and redis://127.0.0.1:6379/0 is not one: "
                    "remove sink.overwrite");
}

TEST_F(JobYamlTest, OneDocumentMayOpenWithItsSeparator) {
    const TempJob job("--- # the one job\n" + std::string(minimal_source) + "sink:\n  uri: stdout\n...\n");
    EXPECT_EQ(load_job(job.path()).read.table, "orders");
}

TEST_F(JobYamlTest, SourceUrlWithoutSchemeIsRefusedWithoutItsPassword) {
    const TempJob job(
        "source:\n  mysql: app:Yaml-S3cret@db.example:3306/shop\n  table: orders\nsink:\n  uri: stdout\n");
    const ConfigError error = config_error(job.path());
    const std::string message = error.what();
    EXPECT_EQ(error.line(), 2) << message;
    EXPECT_NE(message.find("malformed URL 'app:***@db.example:3306/shop'"), std::string::npos) << message;
    EXPECT_EQ(message.find("Yaml-S3cret"), std::string::npos) << message;
}

TEST_F(JobYamlTest, UnsetEnvironmentVariable) {
    expect_error_at(sample("unset_env.yaml"), 5, 8,
                    "environment variable ROWPUMP_TEST_UNSET_VARIABLE is not set: export it, or give the value with "
                    "--set sink.uri=...");
}

TEST_F(JobYamlTest, EnvironmentVariablesExpandInsideValues) {
    ::setenv("ROWPUMP_TEST_JOB_TABLE", "orders", 1);
    TempJob job("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: ${ROWPUMP_TEST_JOB_TABLE}_2024\n"
                "  where: \"price > $$5 AND note <> '$${x}'\"\nsink:\n  uri: stdout\n");
    const JobSpec spec = load_job(job.path());
    ::unsetenv("ROWPUMP_TEST_JOB_TABLE");
    EXPECT_EQ(spec.read.table, "orders_2024");
    EXPECT_EQ(spec.read.where, "price > $$5 AND note <> '${x}'");
}

TEST_F(JobYamlTest, MalformedVariableReference) {
    expect_job_error("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders_${2024}\nsink:\n  uri: stdout\n",
                     3, 10,
                     "source.table: bad variable reference '${2024}': expected ${NAME} (letters, digits and _), or $${ "
                     "for a literal ${");
}

TEST_F(JobYamlTest, EmptyFileAndNonMapFile) {
    expect_job_error("# nothing here\n", 1, 1, "expected a map with at least source and sink, got an empty file");
    expect_job_error("- source\n- sink\n", 1, 1, "expected a map with at least source and sink, got a list");
}

TEST_F(JobYamlTest, MissingFile) {
    const std::string path = sample("no_such_job.yaml");
    expect_error_at(path, 0, 0, "cannot read the job file: No such file or directory");
}

TEST_F(JobYamlTest, PriorityMistakes) {
    const std::string head = std::string(minimal_source) + "sink:\n  uri: redis://127.0.0.1:6379/0\n  queue: q\n";
    expect_job_error(head + "  priority:\n    column: amount\n    levels: [{name: high, min: 10}, {name: mid}, {name: low}]\n",
                     9, 37,
                     "missing key 'min' in sink.priority.levels.1: rows whose value is >= min go to this level; "
                     "only the last level may omit it");
    expect_job_error(head + "  priority:\n    column: amount\n    levels: [{name: low, min: 10}, {name: high, min: 100}, {name: rest}]\n",
                     9, 13,
                     "sink.priority.levels: priority levels must be given highest first, with decreasing thresholds");
    expect_job_error(head + "  priority:\n    column: amount\n    levels: [{name: all}]\n", 9, 13,
                     "sink.priority.levels: expected at least two levels, e.g. [{name: high, min: 1000}, {name: low}]");
    expect_job_error(head + "  priority:\n    levels: \"high:10,low\"\n", 8, 5,
                     "missing key 'column' in sink.priority: the numeric column whose value picks the level");
    expect_job_error(head + "  delay: 30\n  due_column: remind_at\n", 8, 15,
                     "sink.due_column: both delay and due_column are given: expected one of them (a fixed delay, "
                     "or each row's own due time)");
}

TEST_F(JobYamlTest, BadSinkUri) {
    expect_job_error(std::string(minimal_source) + "sink:\n  uri: kafka://broker:9092\n  queue: q\n", 5, 8,
                     "sink.uri: unsupported sink 'kafka://broker:9092': expected stdout, file:PATH, "
                     "redis://[user:pass@]host:port/db (or rediss://, redis+unix://, redis-sentinel://), "
                     "redis-cluster://[user:pass@]host:port[,host:port...]/ (or rediss-cluster://) or "
                     "mysql://user:pass@host:port/db");
}

TEST_F(JobYamlTest, PasswordsNeverAppearInErrors) {
    TempJob job("source:\n  mysql: mysql://app:hunter2@db:notaport/shop\n  table: orders\nsink:\n  uri: stdout\n");
    const ConfigError error = config_error(job.path());
    EXPECT_EQ(error.line(), 2);
    EXPECT_EQ(std::string(error.what()).find("hunter2"), std::string::npos) << error.what();
    const ConfigError from_override =
        config_error(sample("minimal_job.yaml"), {"sink.uri=redis://:hunter2@db:6379/x", "sink.queue=q"});
    EXPECT_EQ(std::string(from_override.what()).find("hunter2"), std::string::npos) << from_override.what();
}

TEST_F(JobYamlTest, OverridesChangeTheFileBeforeValidation) {
    const JobSpec spec = load_job(sample("valid_job.yaml"),
                                  {"source.page_size=500", "workers=4", "sink.priority.levels.0.min=2000",
                                   "source.where=", "source.columns=[id, amount]", "partitions.strategy=balanced",
                                   "sink.queue=other", "job_id=night-run"});
    EXPECT_EQ(spec.read.page_size, 500u);
    EXPECT_EQ(spec.workers, 4u);
    EXPECT_EQ(spec.route.levels[0].min, 2000);
    EXPECT_TRUE(spec.read.where.empty());
    EXPECT_EQ(spec.read.columns, (std::vector<std::string>{"id", "amount"}));
    EXPECT_EQ(spec.partition_strategy, PartitionStrategy::balanced);
    EXPECT_EQ(spec.sink.queue, "other");
    EXPECT_EQ(spec.job_id, "night-run");
}

TEST_F(JobYamlTest, OverridesCreateMissingSections) {
    const JobSpec spec = load_job(sample("minimal_job.yaml"), {"partitions.count=6", "limits.rate=100",
                                                                "source.where=amount > 100 AND tag <> ' # not a comment'"});
    EXPECT_EQ(spec.partitions, 6u);
    EXPECT_EQ(spec.rate, 100);
    EXPECT_EQ(spec.read.where, "amount > 100 AND tag <> ' # not a comment'");
}

TEST_F(JobYamlTest, BadOverridesNameTheOverride) {
    // Each: the job file, the one --set, and what the error says after "--set <override>: ".
    struct BadOverride {
        const char* file;
        const char* override_;
        const char* message;
    };
    const BadOverride cases[] = {
        {"minimal_job.yaml", "source.page_size=abc", "expected a whole number from 1 to 1000000, got 'abc'"},
        {"minimal_job.yaml", "source.colums=id",
         "'source.colums' is not an option of a job file; did you mean 'source.columns'?"},
        {"minimal_job.yaml", "workers", "expected --set path=value, e.g. --set source.page_size=500"},
        {"minimal_job.yaml", "source..table=x",
         "empty name in path 'source..table': expected names joined by dots, e.g. source.table"},
        {"minimal_job.yaml", "source.table.name=x",
         "'source.table' holds a single value, not a map: cannot set 'name' inside it"},
        {"minimal_job.yaml", "source.table=",
         "missing key 'table' in source: the table to read, as name or schema.name"},
        {"valid_job.yaml", "sink.priority.levels.5.min=1",
         "'sink.priority.levels' is a list of 3 items: expected an index below 3, got '5'"},
    };
    for (const BadOverride& bad : cases) {
        SCOPED_TRACE(bad.override_);
        expect_error_at(sample(bad.file), 0, 0, std::string("--set ") + bad.override_ + ": " + bad.message,
                        {bad.override_});
    }
}

TEST_F(JobYamlTest, OverrideFixesAnUnsetVariable) {
    const JobSpec spec = load_job(sample("unset_env.yaml"), {"sink.uri=stdout"});
    EXPECT_EQ(spec.sink.uri, "stdout");
}

// `job_id: ""` (what "${JOB}" gives when JOB is set but empty) would silently run without exactly-once.
TEST_F(JobYamlTest, EmptyJobIdIsAConfigErrorAtItsField) {
    expect_job_error("job_id: \"\"\n" + std::string(minimal_source) + "sink:\n  uri: stdout\n",
                     1, 9, "job_id: expected a value, got an empty string");
    TempJob null_id("job_id:\n" + std::string(minimal_source) + "sink:\n  uri: stdout\n");
    EXPECT_NE(std::string(config_error(null_id.path()).what()).find("job_id: expected a single value, got nothing"),
              std::string::npos);
    TempJob long_id("job_id: " + std::string(192, 'j') + "\n" + std::string(minimal_source) + "sink:\n  uri: stdout\n");
    EXPECT_EQ(config_error(long_id.path()).line(), 1);
    TempJob fine(std::string(minimal_source) + "sink:\n  uri: stdout\n");
    EXPECT_EQ(config_error(fine.path(), {"job_id="}).exit_code(), ExitCode::bad_input);
}

TEST_F(JobYamlTest, CsvNullAndJsonColumnsAreReadAndChecked) {
    TempJob job(std::string(minimal_source) +
                "sink:\n  uri: stdout\n  format: csv\n  csv_null: \"\\\\N\"\n");
    EXPECT_EQ(load_job(job.path()).payload.csv_null, CsvNull::backslash_n);
    TempJob embed(std::string(minimal_source) + "sink:\n  uri: stdout\n  json_columns: embed\n");
    EXPECT_EQ(load_job(embed.path()).payload.json_columns, JsonColumns::embed);
    TempJob not_csv(std::string(minimal_source) + "sink:\n  uri: stdout\n  csv_null: \"\\\\N\"\n");
    EXPECT_EQ(config_error(not_csv.path()).line(), 6);
}

TEST(JobYamlHelpers, EditDistanceAndSuggestions) {
    EXPECT_EQ(job::edit_distance("colums", "columns"), 1u);
    EXPECT_EQ(job::edit_distance("", "abc"), 3u);
    EXPECT_EQ(job::edit_distance("kitten", "sitting"), 3u);
    const std::vector<std::string> keys{"table", "key", "columns", "where"};
    EXPECT_EQ(job::closest_match("tabel", keys), "table");
    EXPECT_EQ(job::closest_match("Table", keys), "table");
    EXPECT_EQ(job::closest_match("ky", keys), "key");
    EXPECT_EQ(job::closest_match("zzzzzz", keys), std::nullopt);
    EXPECT_EQ(job::closest_match("x", keys), std::nullopt);
}

TEST(JobYamlHelpers, ExpandEnv) {
    ::setenv("ROWPUMP_TEST_EXPAND", "v", 1);
    EXPECT_EQ(job::expand_env("a${ROWPUMP_TEST_EXPAND}b$c$${d}"), "avb$c${d}");
    ::unsetenv("ROWPUMP_TEST_EXPAND");
    EXPECT_THROW(job::expand_env("${ROWPUMP_TEST_EXPAND}"), job::UnsetVariable);
    EXPECT_THROW(job::expand_env("${1BAD}"), UsageError);
    EXPECT_THROW(job::expand_env("${UNTERMINATED"), UsageError);
}

}  // namespace
}  // namespace rowpump
