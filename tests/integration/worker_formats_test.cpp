// Jobs that real workers run: a backfill in --format sidekiq run by a real `sidekiq` process, in --format
// celery by a real `celery worker`, scheduled Sidekiq jobs moved into their queue by Sidekiq's own
// poller; the exactly-once ledger and the refusals of bad input for these formats.
//
// Sidekiq and Celery keep keys with fixed names (`schedule`, `queues`, `stat:*`, `_kombu.binding.*`),
// so these tests use databases of their own on the local Redis: 11 for Sidekiq, 12 for Celery. Their
// queues carry the test's name and pid as every test queue does, and each test deletes what it wrote.
// The workers come from scripts/setup.sh (ruby-sidekiq, celery); a test is skipped only when its
// worker program is not installed.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/real_worker_fixture.hpp"
#include "rowpump/enqueue.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int sidekiq_db = 11;
constexpr int celery_db = 12;
constexpr const char* sidekiq_class = "RowpumpTest::Recorder";
constexpr const char* celery_task = "rowpump_test.record";

// A row of the test table as the worker must see it (price as decimal text; data as its base64).
struct ExpectedRow {
    std::int64_t id;
    std::string name;
    std::optional<std::string> note;
    std::optional<std::string> data;
    std::optional<std::string> data_base64;
    std::optional<std::string> price;
    std::optional<std::string> seen;       // as inserted
    std::optional<std::string> seen_json;  // as rowpump's JSON writes it
};

// Unicode (2-, 3- and 4-byte characters, U+2028), control characters, quotes and backslashes, binary
// bytes that are no UTF-8, NUL in text and in bytes, NULLs, empty values and decimals.
std::vector<ExpectedRow> tricky_rows() {
    return {
        {1, "Zo\xc3\xab \xe6\xbc\xa2\xe5\xad\x97 \xf0\x9f\x8e\x89 \xe2\x80\xa8 end",
         "line1\nline2\t\"quoted\" \\back\\slash \x01\x1f\x7f end", std::string("\x00\xff\x80\n\"", 5), "AP+ACiI=",
         "12345.67", "2024-05-01 12:00:00.250", "2024-05-01T12:00:00.250"},
        {2, "O'Brien \"Bobby\" <b>&amp;</b> ', \"", std::nullopt, std::nullopt, std::nullopt, "-0.50", std::nullopt,
         std::nullopt},
        {3, "", "{\"json\": [1, 2], \"nested\": \"\\\"\"}", std::string(), "", "0.00", "1999-12-31 23:59:59.999",
         "1999-12-31T23:59:59.999"},
        {4, "NUL in text", std::string("a\0b", 3), std::string("\0", 1), "AA==", std::nullopt, std::nullopt,
         std::nullopt},
    };
}

// Empty when `row` (as the worker received it, re-encoded by its language's JSON) is `expected`.
std::string row_difference(const rapidjson::Value& row, const ExpectedRow& expected) {
    const auto text_field = [&](const char* name, const std::optional<std::string>& want) -> std::string {
        if (!row.HasMember(name)) return std::string(name) + " is missing";
        const auto& value = row[name];
        if (!want) return value.IsNull() ? "" : std::string(name) + " should be null";
        if (!value.IsString()) return std::string(name) + " is not a string";
        return text_of(value) == *want ? "" : std::string(name) + " is '" + text_of(value) + "', not '" + *want + "'";
    };
    if (!row.IsObject() || !row.HasMember("id") || !row["id"].IsInt64()) return "no integer id";
    if (row["id"].GetInt64() != expected.id) return "another row";
    for (const auto& difference : {text_field("name", expected.name), text_field("note", expected.note),
                                   text_field("data", expected.data_base64), text_field("seen", expected.seen_json)})
        if (!difference.empty()) return difference;
    if (!row.HasMember("price")) return "price is missing";
    if (!expected.price) return row["price"].IsNull() ? "" : "price should be null";
    if (!row["price"].IsNumber()) return "price is not a number";
    return row["price"].GetDouble() == std::stod(*expected.price) ? "" : "price is another number";
}

class WorkerFormatsTest : public RealWorkerTest {
protected:
    // The tricky rows, then plain ones up to `rows`.
    std::string make_table(int rows) {
        table_ = tables().create("workers",
                                 "(id INT PRIMARY KEY, name VARCHAR(200) CHARACTER SET utf8mb4 NOT NULL, "
                                 "note TEXT CHARACTER SET utf8mb4 NULL, data VARBINARY(64) NULL, "
                                 "price DECIMAL(12,2) NULL, seen DATETIME(3) NULL)");
        expected_ = tricky_rows();
        for (int id = static_cast<int>(expected_.size()) + 1; id <= rows; ++id)
            expected_.push_back({id, "row " + std::to_string(id), std::nullopt, std::nullopt, std::nullopt,
                                 std::to_string(id) + ".25", std::nullopt, std::nullopt});
        for (const auto& row : expected_) insert_row(row.id, row.name, {&row.note, &row.data, &row.price, &row.seen});
        return table_;
    }

    std::unique_ptr<WorkerProcess> start_sidekiq() {
        return RealWorkerTest::start_sidekiq(sidekiq_db, "sidekiq_recorder.rb", 2, true);
    }
    std::unique_ptr<WorkerProcess> start_celery() { return RealWorkerTest::start_celery(celery_db); }

    // Every row ran exactly once, intact.
    void expect_each_row_once(const std::vector<rapidjson::Document>& runs, const WorkerProcess& worker) {
        std::map<std::int64_t, int> seen;
        for (const auto& run : runs) {
            ASSERT_TRUE(run.HasMember("row")) << worker.describe();
            const auto& row = run["row"];
            ASSERT_TRUE(row.IsObject() && row.HasMember("id") && row["id"].IsInt64()) << worker.describe();
            const std::int64_t id = row["id"].GetInt64();
            ASSERT_GE(id, 1);
            ASSERT_LE(id, static_cast<std::int64_t>(expected_.size()));
            ++seen[id];
            EXPECT_EQ(row_difference(row, expected_[static_cast<std::size_t>(id - 1)]), "") << "row " << id;
        }
        for (const auto& row : expected_) EXPECT_EQ(seen[row.id], 1) << "row " << row.id << " ran that many times";
    }

    std::vector<ExpectedRow> expected_;
};

TEST_F(WorkerFormatsTest, SidekiqRunsEveryRowOnceIntact) {
    make_table(120);
    auto worker = start_sidekiq();
    if (!worker) GTEST_SKIP() << "sidekiq is not installed: bash scripts/setup.sh installs ruby-sidekiq";
    const CliRun run = backfill(sidekiq_db, {"--format", "sidekiq", "--job-class", sidekiq_class, "--workers", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_TRUE(db(sidekiq_db).command({"SISMEMBER", "queues", queue_}).integer) << "the queue is in Sidekiq's set";

    const auto runs = wait_for_runs(sidekiq_db, expected_.size(), *worker);
    expect_each_row_once(runs, *worker);
    std::set<std::string> jids;
    const std::regex jid_shape("[0-9a-f]{24}");
    for (const auto& ran : runs) {
        const auto& job = ran["job"];
        EXPECT_EQ(text_of(job["class"]), sidekiq_class);
        EXPECT_EQ(text_of(job["queue"]), queue_);
        EXPECT_TRUE(job["retry"].IsTrue());
        EXPECT_TRUE(job["created_at"].IsDouble() && job["enqueued_at"].IsDouble()) << "Sidekiq 6's float seconds";
        const std::string jid = text_of(job["jid"]);
        EXPECT_TRUE(std::regex_match(jid, jid_shape)) << jid;
        jids.insert(jid);
    }
    EXPECT_EQ(jids.size(), runs.size()) << "every job has its own jid";
    EXPECT_EQ(db(sidekiq_db).command({"LLEN", "queue:" + queue_}).integer, 0);
}

TEST_F(WorkerFormatsTest, SidekiqsPollerRunsScheduledJobsWhenTheyAreDue) {
    make_table(20);
    // Started first: its poller's first wait (up to 5 s) overlaps the jobs' delay.
    auto worker = start_sidekiq();
    if (!worker) GTEST_SKIP() << "sidekiq is not installed: bash scripts/setup.sh installs ruby-sidekiq";
    const double delay = 2;
    const double written_at =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const CliRun run = backfill(sidekiq_db, {"--format", "sidekiq", "--job-class", sidekiq_class, "--delay", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    // Scheduled, not queued: every job waits in Sidekiq's schedule, scored by its due time in seconds.
    std::size_t scheduled = 0;
    const auto members = db(sidekiq_db).command({"ZRANGE", "schedule", "0", "-1", "WITHSCORES"}).elements;
    for (std::size_t i = 0; i + 1 < members.size(); i += 2) {
        if (members[i].text.find("\"queue\":\"" + queue_ + "\"") == std::string::npos) continue;
        ++scheduled;
        const double score = std::stod(members[i + 1].text);
        EXPECT_GE(score, written_at + delay - 0.5);
        EXPECT_LE(score, written_at + delay + 30);
    }
    EXPECT_EQ(scheduled, expected_.size());
    EXPECT_EQ(db(sidekiq_db).command({"LLEN", "queue:" + queue_}).integer, 0);

    const auto runs = wait_for_runs(sidekiq_db, expected_.size(), *worker);
    expect_each_row_once(runs, *worker);
    for (const auto& ran : runs) {
        const auto& job = ran["job"];
        ASSERT_TRUE(job.HasMember("enqueued_at")) << "the poller enqueued it";
        EXPECT_GE(job["enqueued_at"].GetDouble(), job["created_at"].GetDouble() + delay - 0.01)
            << "moved to the queue before it was due";
        EXPECT_GE(ran["ran_at"].GetDouble(), job["created_at"].GetDouble() + delay - 0.01);
    }
}

TEST_F(WorkerFormatsTest, CeleryRunsEveryRowOnceIntact) {
    make_table(120);
    auto worker = start_celery();
    if (!worker) GTEST_SKIP() << "celery is not installed: bash scripts/setup.sh installs celery and python3-celery";
    const CliRun run = backfill(celery_db, {"--format", "celery", "--task", celery_task, "--workers", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();

    const auto runs = wait_for_runs(celery_db, expected_.size(), *worker);
    expect_each_row_once(runs, *worker);
    std::set<std::string> ids;
    for (const auto& ran : runs) {
        ids.insert(text_of(ran["id"]));
        EXPECT_TRUE(ran["eta"].IsNull());
    }
    EXPECT_EQ(ids.size(), runs.size()) << "every task has its own id";
    EXPECT_EQ(db(celery_db).command({"LLEN", queue_}).integer, 0);
}

TEST_F(WorkerFormatsTest, CeleryHoldsADelayedTaskUntilItsEta) {
    make_table(5);
    auto worker = start_celery();
    if (!worker) GTEST_SKIP() << "celery is not installed: bash scripts/setup.sh installs celery and python3-celery";
    const double written_at =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const CliRun run = backfill(celery_db, {"--format", "celery", "--task", celery_task, "--delay", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const auto runs = wait_for_runs(celery_db, expected_.size(), *worker);
    expect_each_row_once(runs, *worker);
    for (const auto& ran : runs) {
        EXPECT_TRUE(ran["eta"].IsString()) << "the worker saw the eta";
        EXPECT_GE(ran["ran_at"].GetDouble(), written_at + 2 - 0.01) << "ran before its eta";
    }
}

TEST_F(WorkerFormatsTest, SidekiqJobIdWritesEachJobOnce) {
    make_table(30);
    const std::vector<std::string> job{"--format", "sidekiq", "--job-class", sidekiq_class, "--job-id", job_id_,
                                       "--partitions", "3", "--workers", "2"};
    const CliRun first = backfill(sidekiq_db, job);
    ASSERT_EQ(first.exit_code, 0) << first.describe();
    const CliRun again = backfill(sidekiq_db, job);
    ASSERT_EQ(again.exit_code, 0) << again.describe();
    EXPECT_EQ(db(sidekiq_db).command({"LLEN", "queue:" + queue_}).integer, 30) << "the second run wrote nothing";

    std::vector<std::string> other_class = job;
    other_class[3] = "Other::Job";
    const CliRun changed = backfill(sidekiq_db, other_class);
    EXPECT_EQ(changed.exit_code, 2) << "a job id keeps its job class\n" << changed.describe();

    // Delayed jobs under a job id are Sidekiq's own bare jobs too, not rowpump's tagged members.
    std::vector<std::string> delayed = job;
    delayed[5] = job_id_ + "_delayed";
    delayed.insert(delayed.end(), {"--delay", "600"});
    const CliRun scheduled = backfill(sidekiq_db, delayed);
    ASSERT_EQ(scheduled.exit_code, 0) << scheduled.describe();
    std::size_t ours = 0;
    for (const auto& member : db(sidekiq_db).command({"ZRANGE", "schedule", "0", "-1"}).elements) {
        if (member.text.find("\"queue\":\"" + queue_ + "\"") == std::string::npos) continue;
        ++ours;
        EXPECT_TRUE(member.text.starts_with("{\"retry\":true,")) << member.text;
    }
    EXPECT_EQ(ours, 30u);
}

// The ledger's MULTI holds a page's Sidekiq pushes (SADD queues, LPUSH queue:Q) with its checkpoint: runs
// killed at random moments, then one to the end, leave each row in exactly one job.
TEST_F(WorkerFormatsTest, SidekiqJobsOfKilledAndResumedRunsAreExactlyOnce) {
    constexpr int rows = 6000;
    table_ = tables().create("workers_kill", "(id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)");
    tables().execute(table_, "INSERT INTO {t} SELECT seq, CONCAT('row-', seq) FROM seq_1_to_" + std::to_string(rows));
    std::vector<std::string> args{"-q", "backfill", "--mysql", mysql_url_, "--table", table_, "--sink",
                                  with_db(redis_url_, sidekiq_db), "--queue", queue_, "--format", "sidekiq",
                                  "--job-class", sidekiq_class, "--job-id", job_id_, "--partitions", "4",
                                  "--workers", "2", "--page-size", "100", "--page-time-ms", "0", "--rate", "1500"};
    std::mt19937 random(static_cast<unsigned>(::getpid()));
    std::uniform_int_distribution<int> delay_ms(300, 900);
    int killed = 0;
    for (int run = 0; run < 6; ++run) {
        CliProcess child(args);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
        if (child.poll()) continue;
        EXPECT_EQ(child.kill(), -SIGKILL);
        ++killed;
    }
    CliProcess last(args);
    const auto ended = last.wait_for(60s);
    ASSERT_TRUE(ended) << last.describe();
    ASSERT_EQ(*ended, 0) << last.describe();

    std::map<std::int64_t, int> seen;
    std::set<std::string> jids;
    for (const auto& item : list_items(db(sidekiq_db), "queue:" + queue_)) {
        rapidjson::Document job;
        job.Parse(item.data(), item.size());
        ASSERT_FALSE(job.HasParseError()) << item;
        ++seen[job["args"][0]["id"].GetInt64()];
        jids.insert(text_of(job["jid"]));
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows));
    for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << "row " << id;
    EXPECT_EQ(jids.size(), static_cast<std::size_t>(rows)) << "jids repeat across runs";
    std::printf("[ info     ] %d of 6 runs killed mid-job\n", killed);
}

// The library's bulk enqueue wraps each pushed argument as the framework's client would.
TEST_F(WorkerFormatsTest, BulkEnqueuerJobsRunInSidekiqAndCelery) {
    expected_ = tricky_rows();
    const std::vector<std::string> arguments{
        R"({"id":1,"name":"Zo\u00eb \u6f22\u5b57 \ud83c\udf89 \u2028 end","note":"line1\nline2\t\"quoted\" \\back\\slash \u0001\u001f\u007f end","data":"AP+ACiI=","price":12345.67,"seen":"2024-05-01T12:00:00.250"})",
        R"({"id":2,"name":"O'Brien \"Bobby\" <b>&amp;</b> ', \"","note":null,"data":null,"price":-0.50,"seen":null})"};
    expected_.resize(arguments.size());
    const auto enqueue = [&](int redis_db, Format format, const TaskSpec& task) {
        SinkSpec sink;
        sink.uri = with_db(redis_url_, redis_db);
        sink.queue = queue_;
        BulkEnqueuer jobs(sink, format, task);
        for (const auto& argument : arguments) jobs.push(argument);
        jobs.flush();
        EXPECT_EQ(jobs.written(), arguments.size());
    };
    TaskSpec sidekiq;
    sidekiq.job_class = sidekiq_class;
    enqueue(sidekiq_db, Format::sidekiq, sidekiq);
    TaskSpec celery;
    celery.task = celery_task;
    enqueue(celery_db, Format::celery, celery);

    auto sidekiq_worker = start_sidekiq();
    auto celery_worker = start_celery();
    if (!sidekiq_worker || !celery_worker) GTEST_SKIP() << "sidekiq or celery is not installed: bash scripts/setup.sh";
    expect_each_row_once(wait_for_runs(sidekiq_db, arguments.size(), *sidekiq_worker), *sidekiq_worker);
    expect_each_row_once(wait_for_runs(celery_db, arguments.size(), *celery_worker), *celery_worker);
}

TEST_F(WorkerFormatsTest, BadWorkerFormatInputIsRefusedBeforeAnythingIsWritten) {
    make_table(5);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--format", "sidekiq"}, "--job-class"},
        {{"--format", "sidekiq", "--job-class", "billing::Job"}, "Ruby constant path"},
        {{"--format", "celery"}, "--task"},
        {{"--format", "celery", "--task", "t", "--push", "rpush"}, "--push"},
        {{"--format", "json", "--job-class", "Billing::Job"}, "--format sidekiq"},
        {{"--format", "sidekiq", "--job-class", "A", "--priority-column", "price", "--priority", "high:10,low"},
         "priority"},
        {{"--format", "celery", "--task", "t", "--sidekiq-timestamps", "ms"}, "--sidekiq-timestamps"},
        {{"--format", "sidekiq", "--dry-run"}, "--job-class"},
    };
    for (const auto& [flags, needle] : cases) expect_one_line_refusal(backfill(sidekiq_db, flags), needle);
    EXPECT_EQ(db(sidekiq_db).command({"EXISTS", queue_, "queue:" + queue_}).integer, 0);
    EXPECT_EQ(db(sidekiq_db).command({"SISMEMBER", "queues", queue_}).integer, 0);
}

}  // namespace
}  // namespace rowpump::test
