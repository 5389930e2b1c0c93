// run_job against the real servers: every row of the table arrives in the sink exactly once, whatever the
// key (integer, composite, case-insensitive string, skewed), the number of ranges, the number of workers
// and the sink (NDJSON file, Redis list, MySQL queue table). Small pages (97 rows, fixed) make ranges span
// many pages, so splits for work stealing happen at page boundaries in the middle of ranges.
//
// Then routing (priority lists, fixed delay, due column), work stealing on a skewed key, a stop in the
// middle of a run (the summary says exactly where each range stopped) and the high-water pause.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "integration/mysql_redis_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "integration/redis_fixture.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t matrix_page_size = 97;

// The DDL of the queue table after its name, so TestTables creates (and later drops) it.
std::string queue_table_definition(const std::string& table) {
    const std::string ddl = mysql::queue_table_ddl(table);
    return ddl.substr(ddl.find('('));
}

std::vector<std::string> column_texts(TestTables& tables, const std::string& sql) {
    std::vector<std::string> out;
    for (auto& row : tables.rows(sql)) out.push_back(row.at(0).value_or("<NULL>"));
    return out;
}

JobSpec small_page_spec(const MySqlOptions& mysql, const std::string& table) {
    JobSpec spec;
    spec.mysql = mysql;
    spec.read.table = table;
    spec.read.page_size = matrix_page_size;
    spec.read.target_page_time = 0ms;
    return spec;
}

std::int64_t integer_part(const KeyPart& part) {
    if (const auto* value = std::get_if<std::int64_t>(&part)) return *value;
    if (const auto* value = std::get_if<std::uint64_t>(&part)) return static_cast<std::int64_t>(*value);
    ADD_FAILURE() << "key part is not an integer: " << std::get<std::string>(part);
    return 0;
}

std::string describe(const JobSummary& summary) {
    std::string out = std::to_string(summary.rows_read) + " read, " + std::to_string(summary.rows_written) +
                      " written, " + std::to_string(summary.steals) + " steals" +
                      (summary.interrupted ? ", interrupted" : "") + "; ranges:";
    for (const auto& range : summary.ranges) {
        out += " [" + (range.range.lo ? to_string(*range.range.lo) : std::string("start")) + ", " +
               (range.range.hi ? to_string(*range.range.hi) : std::string("end")) + ") " +
               std::to_string(range.rows_written) + (range.finished ? " finished" : " open") +
               (range.last_written ? " last " + to_string(*range.last_written) : std::string()) + ";";
    }
    return out;
}

// ------------------------------------------------------------------------------------------------ matrix

enum class Shape { integer, composite, text, skewed };
enum class SinkKind { file, redis, mysql };

const char* name_of(Shape shape) {
    switch (shape) {
        case Shape::integer: return "integer";
        case Shape::composite: return "composite";
        case Shape::text: return "text_ci";
        case Shape::skewed: return "skewed";
    }
    return "?";
}

const char* name_of(SinkKind sink) {
    switch (sink) {
        case SinkKind::file: return "file";
        case SinkKind::redis: return "redis";
        case SinkKind::mysql: return "mysql";
    }
    return "?";
}

struct ShapeTable {
    std::string name;
    std::vector<std::string> key_fields;  // in the JSON payload
    std::vector<std::string> keys;        // every row's key as payload_key() renders it
    PartitionStrategy strategy = PartitionStrategy::balanced;
};

ShapeTable create_shape(TestTables& tables, Shape shape) {
    ShapeTable out;
    switch (shape) {
        case Shape::integer:
            out.name = tables.create("bf_int", "(id BIGINT PRIMARY KEY, v VARCHAR(20) NOT NULL)");
            tables.execute(out.name, "INSERT INTO {t} SELECT seq * 3, CONCAT('v', seq) FROM seq_1_to_3000");
            out.key_fields = {"id"};
            out.keys = column_texts(tables, "SELECT CAST(id AS CHAR) FROM `" + out.name + "`");
            break;
        case Shape::composite:
            out.name = tables.create("bf_comp", "(a INT NOT NULL, b VARCHAR(20) NOT NULL, v INT NOT NULL, "
                                                "PRIMARY KEY (a, b))");
            tables.execute(out.name, "INSERT INTO {t} SELECT CAST(seq % 13 AS SIGNED) - 6, CONCAT('b', seq), seq FROM seq_1_to_3000");
            out.key_fields = {"a", "b"};
            out.keys = column_texts(tables, "SELECT CONCAT(a, '|', b) FROM `" + out.name + "`");
            break;
        case Shape::text:
            // Mixed case and an accent: the collation's order (alpha < Beta < delta < Émile < GAMMA) is not
            // the bytes' order, so any comparison made outside the server would lose or repeat rows.
            out.name = tables.create("bf_text", "(k VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci "
                                                "NOT NULL PRIMARY KEY, v INT NOT NULL) DEFAULT CHARSET=utf8mb4");
            tables.execute(out.name, "INSERT INTO {t} SELECT CONCAT(ELT(seq % 5 + 1, 'alpha', 'Beta', 'GAMMA', "
                                     "'delta', 'Émile'), '-', seq), seq FROM seq_1_to_3000");
            out.key_fields = {"k"};
            out.keys = column_texts(tables, "SELECT k FROM `" + out.name + "`");
            break;
        case Shape::skewed:
            // 99% of the rows in the first 0.0003% of the key range: minmax ranges are very uneven, and
            // only work stealing keeps the workers busy.
            out.name = tables.create("bf_skew", "(id BIGINT PRIMARY KEY, v INT NOT NULL)");
            tables.execute(out.name, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_2970");
            tables.execute(out.name, "INSERT INTO {t} SELECT seq * 33333333, seq FROM seq_1_to_30");
            out.key_fields = {"id"};
            out.keys = column_texts(tables, "SELECT CAST(id AS CHAR) FROM `" + out.name + "`");
            out.strategy = PartitionStrategy::minmax;
            break;
    }
    return out;
}

// One table per key shape for the whole matrix, created when a test first needs it: creating them per
// test would cost more than the runs (and ctest, which runs each test in a process of its own, creates
// only the one its test reads).
struct MatrixWorld {
    MySqlOptions mysql;
    std::string mysql_url;
    std::string redis_url;
    std::unique_ptr<TestTables> tables;
    std::optional<redis::Connection> redis;
    std::map<Shape, ShapeTable> shapes;
    std::string redis_queue;
    std::string queue_table;  // empty until a test writes to the MySQL sink

    const ShapeTable& shape(Shape which) {
        auto found = shapes.find(which);
        if (found == shapes.end()) found = shapes.emplace(which, create_shape(*tables, which)).first;
        return found->second;
    }

    const std::string& mysql_queue() {
        if (queue_table.empty()) {
            const std::string name = "rp_test_bf_queue_" + std::to_string(::getpid());
            queue_table = tables->create("bf_queue", queue_table_definition(name));
        }
        return queue_table;
    }

    void clear_queues() {
        redis->command({"DEL", redis_queue, redis_queue + ":delayed"});
        if (!queue_table.empty())
            tables->connection().execute_text("DELETE FROM " + mysql::quote_identifier(queue_table));
    }
};

using MatrixCase = std::tuple<Shape, SinkKind, std::size_t, std::size_t>;

class BackfillMatrixTest : public ::testing::TestWithParam<MatrixCase> {
public:
    static void SetUpTestSuite() {
        try {
            auto mysql = mysql_options_from_env();
            auto redis_url = redis_url_from_env();
            if (!mysql) throw std::runtime_error(start_services_hint);
            if (!redis_url) throw std::runtime_error(start_redis_hint);
            auto world = std::make_unique<MatrixWorld>();
            world->mysql = *mysql;
            world->mysql_url = std::getenv("ROWPUMP_MYSQL_URL");
            world->redis_url = *redis_url;
            world->tables = std::make_unique<TestTables>(world->mysql);
            world->redis.emplace(RedisOptions::from_url(world->redis_url));
            world->redis_queue = "rp_test:bf_matrix:" + std::to_string(::getpid());
            world_ = std::move(world);
        } catch (const std::exception& error) {
            setup_error_ = error.what();
        }
    }

    static void TearDownTestSuite() {
        if (world_ && world_->redis) world_->redis->command({"DEL", world_->redis_queue, world_->redis_queue + ":delayed"});
        world_.reset();
    }

protected:
    void SetUp() override {
        if (!world_) FAIL() << "backfill matrix setup failed: " << setup_error_;
        world_->clear_queues();
    }

    static inline std::unique_ptr<MatrixWorld> world_;
    static inline std::string setup_error_;
};

TEST_P(BackfillMatrixTest, EveryRowArrivesExactlyOnce) {
    const auto [shape, sink, partitions, workers] = GetParam();
    MatrixWorld& world = *world_;
    const ShapeTable& table = world.shape(shape);

    JobSpec spec = small_page_spec(world.mysql, table.name);
    spec.partitions = partitions;
    spec.workers = workers;
    spec.partition_strategy = table.strategy;
    std::string file;
    switch (sink) {
        case SinkKind::file:
            file = fresh_temp_path("bf_matrix.ndjson");
            spec.sink.uri = "file:" + file;
            break;
        case SinkKind::redis:
            spec.sink.uri = world.redis_url;
            spec.sink.queue = world.redis_queue;
            break;
        case SinkKind::mysql:
            spec.sink.uri = world.mysql_url;
            spec.sink.queue = world.mysql_queue();
            break;
    }

    std::uint64_t last_progress = 0;
    JobControl control;
    control.on_progress = [&](const JobProgress& progress) { last_progress = progress.rows_written; };
    const JobSummary summary = run_job(spec, control);

    std::vector<std::string> payloads;
    switch (sink) {
        case SinkKind::file:
            payloads = file_lines(file);
            std::remove(file.c_str());
            break;
        case SinkKind::redis: payloads = list_items(*world.redis, world.redis_queue); break;
        case SinkKind::mysql: payloads = queue_payloads(world.tables->connection(), world.mysql_queue()); break;
    }
    EXPECT_EQ(multiset_difference(payload_keys(payloads, table.key_fields), table.keys), "") << describe(summary);
    EXPECT_EQ(summary.rows_written, table.keys.size()) << describe(summary);
    EXPECT_EQ(summary.rows_read, table.keys.size()) << describe(summary);
    EXPECT_EQ(last_progress, table.keys.size()) << "the last progress report is the final count";
    EXPECT_FALSE(summary.interrupted) << describe(summary);
    EXPECT_EQ(summary.ranges.size(), partitions + summary.steals) << describe(summary);
    for (const auto& range : summary.ranges) EXPECT_TRUE(range.finished) << describe(summary);
}

std::string matrix_case_name(const ::testing::TestParamInfo<MatrixCase>& info) {
    const auto [shape, sink, partitions, workers] = info.param;
    return std::string(name_of(shape)) + "_" + name_of(sink) + "_N" + std::to_string(partitions) + "_W" +
           std::to_string(workers);
}

INSTANTIATE_TEST_SUITE_P(Keys, BackfillMatrixTest,
                         ::testing::Combine(::testing::Values(Shape::integer, Shape::composite, Shape::text,
                                                              Shape::skewed),
                                            ::testing::Values(SinkKind::file, SinkKind::redis, SinkKind::mysql),
                                            ::testing::Values(std::size_t{1}, std::size_t{3}, std::size_t{16}),
                                            ::testing::Values(std::size_t{1}, std::size_t{2}, std::size_t{4})),
                         matrix_case_name);

// ------------------------------------------------------------------------------------ routing, stealing, stop

// MariaDB and Redis both; the Redis queue is rp_test:bf.<test>:<pid> and is deleted before and after.
class BackfillTest : public MySqlRedisTest {
protected:
    void expect_high_water_holds(JobSpec spec);

    JobSpec redis_spec(const std::string& table) const { return redis_job(table, matrix_page_size); }

    // A fresh queue table (dropped at the end) as the sink.
    JobSpec mysql_spec(const std::string& table) {
        JobSpec spec = small_page_spec(options(), table);
        const std::string name = "rp_test_bfq_" + std::to_string(::getpid());
        spec.sink.uri = std::getenv("ROWPUMP_MYSQL_URL");
        spec.sink.queue = tables().create("bfq", queue_table_definition(name));
        return spec;
    }

    // Each task of the delayed set as "id@score", to compare with the due times the table holds.
    std::vector<std::string> delayed_ids_at_scores() {
        std::vector<std::string> out;
        for (const auto& member : delayed_tasks(redis(), queue_))
            out.push_back(payload_key(member.member, {"id"}) + "@" + std::to_string(member.score));
        return out;
    }

    std::vector<std::string> keys_of(const std::string& sql) { return column_texts(tables(), sql); }

    redis::Connection& redis() { return *redis_; }

};

const std::vector<PriorityLevel> three_levels{{"high", 100}, {"mid", 10}, {"low", 0}};

std::string amounts_table(TestTables& tables) {
    // Exactly 100 and 10 sit on the thresholds (>= goes up); NULL and negative amounts go to the last level.
    const auto table = tables.create("bf_amounts", "(id INT PRIMARY KEY, amount DECIMAL(10,2) NULL)");
    tables.execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 50 = 0, NULL, CAST(seq % 230 AS SIGNED) - 20 + (seq % 3) * 0.25) "
                          "FROM seq_1_to_2000");
    tables.execute(table, "UPDATE {t} SET amount = 100 WHERE id IN (7, 8)");
    tables.execute(table, "UPDATE {t} SET amount = 10 WHERE id IN (9, 11)");
    tables.execute(table, "UPDATE {t} SET amount = 9.99 WHERE id = 12");
    return table;
}

// Three ranges on two workers, each row routed to the priority level of its amount.
JobSpec routed_by_amount(JobSpec spec) {
    spec.partitions = 3;
    spec.workers = 2;
    spec.route.priority_column = "amount";
    spec.route.levels = three_levels;
    return spec;
}

const char* const level_sql =
    "CASE WHEN amount >= 100 THEN 'high' WHEN amount >= 10 THEN 'mid' ELSE 'low' END";

TEST_F(BackfillTest, PriorityRoutingPutsEachRowInItsRedisList) {
    const auto table = amounts_table(tables());
    const JobSpec spec = routed_by_amount(redis_spec(table));
    const auto summary = run_job(spec);
    EXPECT_EQ(summary.rows_written, 2000u) << describe(summary);
    for (const char* level : {"high", "mid", "low"}) {
        const auto expected =
            keys_of("SELECT CAST(id AS CHAR) FROM `" + table + "` WHERE " + level_sql + " = '" + level + "'");
        ASSERT_FALSE(expected.empty()) << level;
        EXPECT_EQ(multiset_difference(payload_keys(list_items(redis(), queue_ + ":p:" + level), {"id"}), expected), "")
            << "list " << queue_ << ":p:" << level;
    }
    EXPECT_EQ(redis().command({"EXISTS", queue_}).integer, 0) << "with priority lists nothing goes to the plain list";
    EXPECT_EQ(redis().command({"EXISTS", queue_ + ":delayed"}).integer, 0);
}

TEST_F(BackfillTest, PriorityRoutingSetsTheMySqlPriorityColumn) {
    const auto table = amounts_table(tables());
    const JobSpec spec = routed_by_amount(mysql_spec(table));
    run_job(spec);
    // Highest first: high is 3, mid 2, low 1, so consumers taking the highest priority value see high first.
    std::vector<std::string> actual;
    for (const auto& row : queue_rows(tables().connection(), spec.sink.queue))
        actual.push_back(payload_key(row.payload, {"id"}) + "=" + std::to_string(row.priority));
    const auto expected = keys_of("SELECT CONCAT(id, '=', CASE WHEN amount >= 100 THEN 3 WHEN amount >= 10 THEN 2 "
                                  "ELSE 1 END) FROM `" + table + "`");
    EXPECT_EQ(multiset_difference(actual, expected), "");
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

TEST_F(BackfillTest, FixedDelayRowsSitInTheDelayedSetDueAfterTheDelay) {
    const auto table = tables().create("bf_delay", "(id INT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_1000");
    JobSpec spec = redis_spec(table);
    spec.workers = 2;
    spec.route.delay = 90s;
    const std::int64_t before = now_ms();
    run_job(spec);
    const std::int64_t after = now_ms();

    const auto delayed = delayed_tasks(redis(), queue_);
    std::vector<std::string> payloads;
    for (const auto& member : delayed) {
        payloads.push_back(member.member);
        EXPECT_GE(member.score, before + 90'000) << member.member;
        EXPECT_LE(member.score, after + 90'000) << member.member;
    }
    EXPECT_EQ(multiset_difference(payload_keys(payloads, {"id"}), keys_of("SELECT CAST(id AS CHAR) FROM `" + table + "`")),
              "");
    EXPECT_EQ(redis().command({"EXISTS", queue_}).integer, 0) << "delayed rows must not be ready";
}

TEST_F(BackfillTest, FixedDelayRowsInTheMySqlQueueBecomeAvailableAfterTheDelay) {
    const auto table = tables().create("bf_delay_my", "(id INT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_500");
    JobSpec spec = mysql_spec(table);
    spec.route.delay = 90s;
    // available_at has microseconds but FROM_UNIXTIME(ms / 1000) rounds to the millisecond: allow 1 ms.
    const std::int64_t before = now_ms() - 1;
    run_job(spec);
    const std::int64_t after = now_ms() + 1;
    const auto rows = queue_rows(tables().connection(), spec.sink.queue);
    ASSERT_EQ(rows.size(), 500u);
    for (const auto& row : rows) {
        EXPECT_GE(row.available_ms, before + 90'000) << row.payload;
        EXPECT_LE(row.available_ms, after + 90'000) << row.payload;
        EXPECT_EQ(row.status, "ready");
    }
}

TEST_F(BackfillTest, DueColumnScoresAreTheColumnsUnixTimeInMilliseconds) {
    const auto table = tables().create("bf_due", "(id INT PRIMARY KEY, due DATETIME(3) NULL)");
    // Past and future times with milliseconds; every 10th row has no due time and is ready at once.
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 10 = 0, NULL, TIMESTAMP'2024-05-01 12:00:00.250' + "
                            "INTERVAL seq * 7777 SECOND + INTERVAL seq * 1000 MICROSECOND) FROM seq_1_to_1500");
    JobSpec spec = redis_spec(table);
    spec.partitions = 2;
    spec.workers = 2;
    spec.route.due_column = "due";
    const auto summary = run_job(spec);
    EXPECT_EQ(summary.rows_written, 1500u);

    const std::vector<std::string> actual = delayed_ids_at_scores();
    const auto expected = keys_of("SELECT CONCAT(id, '@', CAST(UNIX_TIMESTAMP(due) * 1000 AS SIGNED)) FROM `" + table +
                                  "` WHERE due IS NOT NULL");
    EXPECT_EQ(multiset_difference(actual, expected), "");
    EXPECT_EQ(multiset_difference(payload_keys(list_items(redis(), queue_), {"id"}),
                                  keys_of("SELECT CAST(id AS CHAR) FROM `" + table + "` WHERE due IS NULL")),
              "")
        << "rows without a due time are ready at once";
}

TEST_F(BackfillTest, DueColumnInTheMySqlQueueIsTheAvailableTime) {
    const auto table = tables().create("bf_due_my", "(id INT PRIMARY KEY, due DATETIME(3) NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 10 = 0, NULL, '2030-01-01 00:00:00.125' + "
                            "INTERVAL seq * 3333 SECOND) FROM seq_1_to_500");
    JobSpec spec = mysql_spec(table);
    spec.route.due_column = "due";
    run_job(spec);
    auto rows = tables().rows("SELECT COUNT(*) FROM `" + spec.sink.queue + "` q JOIN `" + table +
                              "` t ON t.id = JSON_VALUE(q.payload, '$.id') WHERE t.due IS NOT NULL AND "
                              "q.available_at = t.due");
    EXPECT_EQ(rows.at(0).at(0), "450") << "each due row is available exactly at its due time";
    EXPECT_EQ(tables().count(spec.sink.queue), 500u);
}

// UNIX_TIMESTAMP() of MariaDB before 11.5 (and of MySQL on 32-bit time) returns NULL after 2038-01-19; the
// router must not read that NULL as "no due time" and make a task due in 2040 ready today.
TEST_F(BackfillTest, DueTimeAfter2038StaysDelayed) {
    const auto table = tables().create("bf_due_2040", "(id INT PRIMARY KEY, due DATETIME NOT NULL)");
    tables().execute(table, "INSERT INTO {t} VALUES (1, '2037-06-01 00:00:00'), (2, '2040-06-01 00:00:00'), "
                            "(3, '2099-12-31 23:59:59')");
    JobSpec spec = redis_spec(table);
    spec.route.due_column = "due";
    run_job(spec);
    EXPECT_EQ(list_items(redis(), queue_), std::vector<std::string>{})
        << "rows due in 2040 and 2099 were made ready at once";
    const std::vector<std::string> actual = delayed_ids_at_scores();
    // Whole seconds since the epoch, computed without UNIX_TIMESTAMP (the session time zone here is UTC
    // or at least has no offset change between 1970 and these dates that TIMESTAMPDIFF would miss).
    const auto expected = keys_of("SELECT CONCAT(id, '@', TIMESTAMPDIFF(SECOND, FROM_UNIXTIME(0), due) * 1000) FROM `" +
                                  table + "`");
    EXPECT_EQ(multiset_difference(actual, expected), "");
}

// The same in the MySQL queue: FROM_UNIXTIME() of MariaDB before 11.5 returns NULL after 2038 too, and the
// sink's COALESCE(..., NOW(6)) then makes the task available at once.
TEST_F(BackfillTest, DueTimeAfter2038StaysDelayedInTheMySqlQueue) {
    const auto table = tables().create("bf_due_2040_my", "(id INT PRIMARY KEY, due DATETIME NOT NULL)");
    tables().execute(table, "INSERT INTO {t} VALUES (1, '2037-06-01 00:00:00'), (2, '2040-06-01 00:00:00')");
    JobSpec spec = mysql_spec(table);
    spec.route.due_column = "due";

    // The sink alone, given the due time in ms that the router should compute for 2040-06-01 (UTC here).
    const auto seconds = tables().rows("SELECT TIMESTAMPDIFF(SECOND, FROM_UNIXTIME(0), '2040-06-01 00:00:00')");
    const std::int64_t due_2040_ms = std::stoll(*seconds.at(0).at(0)) * 1000;
    try {
        make_sink(spec.sink)->write({Message{R"({"id":0})", 0, due_2040_ms}});
        const auto direct = tables().rows("SELECT CAST(available_at AS CHAR) FROM `" + spec.sink.queue + "`");
        ASSERT_EQ(direct.size(), 1u);
        EXPECT_EQ(direct[0].at(0), "2040-06-01 00:00:00.000000") << "the sink made a task due in 2040 available now";
    } catch (const Error& error) {
        ADD_FAILURE() << "the MySQL sink refused a task due in 2040: " << error.what();
    }
    tables().execute(spec.sink.queue, "DELETE FROM {t}");

    run_job(spec);
    const auto rows = tables().rows("SELECT JSON_VALUE(payload, '$.id'), CAST(available_at AS CHAR) FROM `" +
                                    spec.sink.queue + "` ORDER BY 1");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at(1), "2037-06-01 00:00:00.000000");
    EXPECT_EQ(rows[1].at(1), "2040-06-01 00:00:00.000000") << "a task due in 2040 is available at once";
}

TEST_F(BackfillTest, WorkStealingSplitsASkewedSingleRange) {
    // ids 1..9900 dense and 100 ids spread up to 10^9: one range, two workers; the idle one must steal.
    const auto table = tables().create("bf_steal", "(id BIGINT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_9900");
    tables().execute(table, "INSERT INTO {t} SELECT seq * 10000000, seq FROM seq_1_to_100");
    JobSpec spec = redis_spec(table);
    spec.partitions = 1;
    spec.workers = 2;
    // Half a second of reading: unpaced, the first worker once read all 10,000 rows on a busy machine before
    // the idle one was scheduled, and there was nothing left to steal.
    spec.rate = 20000;
    const auto summary = run_job(spec);
    EXPECT_GT(summary.steals, 0u) << describe(summary);
    EXPECT_EQ(summary.ranges.size(), 1 + summary.steals) << describe(summary);
    EXPECT_EQ(summary.rows_written, 10000u) << describe(summary);
    EXPECT_EQ(multiset_difference(payload_keys(list_items(redis(), queue_), {"id"}),
                                  keys_of("SELECT CAST(id AS CHAR) FROM `" + table + "`")),
              "")
        << describe(summary);
}

// A worker reads all its ranges, and what a split leaves of one, over one connection: 200 ranges on two
// workers opened a connection a range (and one more after each split) before.
TEST_F(BackfillTest, EachWorkerReadsItsRangesOverOneConnection) {
    const auto table = tables().create("bf_one_conn", "(id INT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_4000");
    JobSpec spec = redis_spec(table);
    spec.partitions = 200;
    spec.workers = 2;
    const auto connections = [&] {
        return std::stoull(tables().rows("SHOW GLOBAL STATUS LIKE 'Connections'").at(0).at(1).value());
    };
    const auto before = connections();
    const auto summary = run_job(spec);
    const auto opened = connections() - before;
    EXPECT_EQ(summary.rows_written, 4000u) << describe(summary);
    EXPECT_GE(summary.ranges.size(), 200u) << describe(summary);
    // Two readers and the run's own few; the margin is for tests running beside this one.
    EXPECT_LT(opened, 100u) << describe(summary);
}

// Several idle workers: a range that was just split off can be split again before its new owner has
// read a single row. The cut must still fall inside that range (after its lower bound).
TEST_F(BackfillTest, WorkStealingWithManyIdleWorkersReadsEveryRowOnce) {
    const auto table = tables().create("bf_steal_text", "(k VARCHAR(40) CHARACTER SET utf8mb4 COLLATE "
                                                         "utf8mb4_general_ci NOT NULL PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT CONCAT(ELT(seq % 4 + 1, 'alpha', 'Beta', 'GAMMA', 'delta'), "
                            "LPAD(seq, 6, '0')), seq FROM seq_1_to_16000");
    const auto expected = keys_of("SELECT k FROM `" + table + "`");
    for (int run = 0; run < 2; ++run) {
        clear_redis();
        JobSpec spec = redis_spec(table);
        spec.partitions = 1;
        spec.workers = 4;
        const auto summary = run_job(spec);
        EXPECT_EQ(multiset_difference(payload_keys(list_items(redis(), queue_), {"k"}), expected), "")
            << "run " << run << ": " << describe(summary);
        EXPECT_EQ(summary.rows_written, expected.size()) << "run " << run << ": " << describe(summary);
    }
}

TEST_F(BackfillTest, StopFlagMidRunLeavesAnExactResumableSummary) {
    const auto table = tables().create("bf_stop", "(id BIGINT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq * 2, seq FROM seq_1_to_4000");
    JobSpec spec = redis_spec(table);
    spec.partitions = 3;
    spec.workers = 2;
    spec.rate = 2500;  // ~1.6 s for the whole table
    // Stop when both workers are well inside their first range (~500 of 1333 rows each): the pages
    // still in flight then cannot finish it.
    const auto summary = run_stopped_at(spec, 1000);

    const auto summary_text = describe(summary);
    EXPECT_TRUE(summary.interrupted) << summary_text;
    const auto queued = payload_keys(list_items(redis(), queue_), {"id"});
    EXPECT_EQ(summary.rows_written, queued.size()) << summary_text;
    EXPECT_GT(queued.size(), 0u) << summary_text;
    EXPECT_LT(queued.size(), 4000u) << summary_text;

    // Each range: the rows in the queue are exactly those from its start up to last_written (all of it
    // when finished), so resuming each range after last_written would complete the job exactly once.
    std::vector<std::int64_t> ids;
    for (const auto& key : queued) ids.push_back(std::stoll(key));
    std::size_t accounted = 0;
    bool some_range_stopped_midway = false;
    for (const auto& range : summary.ranges) {
        const std::int64_t lo = range.range.lo ? integer_part(range.range.lo->at(0)) : INT64_MIN;
        const std::int64_t hi = range.range.hi ? integer_part(range.range.hi->at(0)) : INT64_MAX;
        std::vector<std::int64_t> in_range;
        for (std::int64_t id : ids)
            if (id >= lo && id < hi) in_range.push_back(id);
        std::sort(in_range.begin(), in_range.end());
        accounted += in_range.size();
        EXPECT_EQ(range.rows_written, in_range.size()) << summary_text;
        std::int64_t end = lo - 1;  // the last id that must be in the queue for this range
        if (range.finished) end = hi - 1;
        else if (range.last_written) end = integer_part(range.last_written->at(0));
        if (!range.finished && range.last_written && end < hi - 2) some_range_stopped_midway = true;
        std::vector<std::int64_t> expected;
        for (std::int64_t id = 2; id <= 8000; id += 2)
            if (id >= lo && id < hi && id <= end) expected.push_back(id);
        EXPECT_EQ(in_range, expected) << "range [" << lo << ", " << hi << ") " << summary_text;
        if (!range.finished && range.rows_written > 0) {
            EXPECT_TRUE(range.last_written.has_value()) << "an unfinished range that wrote rows says where";
        }
    }
    EXPECT_EQ(accounted, ids.size()) << "every queued row belongs to one range: " << summary_text;
    EXPECT_TRUE(some_range_stopped_midway) << summary_text;
}

// A consumer slower than the producer drains the queue while run_job fills it under a high water.
void BackfillTest::expect_high_water_holds(JobSpec spec) {
    const auto& table = spec.read.table;
    spec.workers = 1;
    spec.high_water = 300;

    std::atomic<bool> done{false};
    std::vector<std::string> popped;
    long long longest = 0;
    std::thread consumer([&] {
        redis::Connection connection(RedisOptions::from_url(redis_url_));
        while (true) {
            const bool finished = done.load();
            longest = std::max(longest, connection.command({"LLEN", queue_}).integer);
            const auto reply = connection.command({"LPOP", queue_, "40"});
            for (const auto& element : reply.elements) popped.push_back(element.text);
            if (finished && reply.elements.empty()) break;
            std::this_thread::sleep_for(20ms);  // ~2000 rows/s: slower than the producer
        }
    });
    const auto summary = run_job(spec);
    done.store(true);
    consumer.join();

    EXPECT_EQ(multiset_difference(payload_keys(popped, {"id"}), keys_of("SELECT CAST(id AS CHAR) FROM `" + table + "`")),
              "");
    EXPECT_EQ(summary.rows_written, 2500u);
    // A page is written once the queue is at or below the high water: it never holds more than one page more.
    EXPECT_LE(longest, static_cast<long long>(spec.high_water + matrix_page_size));
    EXPECT_GE(longest, static_cast<long long>(spec.high_water) - static_cast<long long>(matrix_page_size))
        << "the producer never got ahead of the consumer, so the pause was not exercised";
}

TEST_F(BackfillTest, HighWaterPausesWhileTheQueueIsFull) {
    const auto table = tables().create("bf_high", "(id INT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_2500");
    expect_high_water_holds(redis_spec(table));
}

TEST_F(BackfillTest, HighWaterPausesAJobWithCheckpointsToo) {
    const auto table = tables().create("bf_high_job", "(id INT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_2500");
    JobSpec spec = redis_spec(table);
    spec.job_id = "rp_test_bf_high_" + std::to_string(::getpid());
    delete_keys(*redis_, "rowpump:job:" + spec.job_id + ":*");
    expect_high_water_holds(spec);
    delete_keys(*redis_, "rowpump:job:" + spec.job_id + ":*");
}

}  // namespace
}  // namespace rowpump::test
