// --format activejob run by a real ActiveJob job class (tests/workers/activejob_recorder.rb) in a real
// `sidekiq` process through ActiveJob's Sidekiq adapter: every row performed once, with its values as Ruby
// objects of the types ActiveJob serializes (BigDecimal, Time, Date), scheduled rows moved by Sidekiq's
// poller; and the refusals of what ActiveJob could not read.
//
// Sidekiq keeps keys with fixed names (`schedule`, `queues`, `stat:*`), so this test uses a database of its
// own on the local Redis (13); its queue carries the test's name and pid, and each test deletes what it
// wrote. The worker comes from scripts/setup.sh (ruby-sidekiq, ruby-activejob); a test is skipped only
// when `sidekiq` is not installed.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "integration/real_worker_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int activejob_db = 13;
constexpr const char* job_class = "RowpumpTest::ActiveRecorder";
constexpr const char* wrapper = "ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper";

// A row as inserted and as the job must see it (`plain` in activejob_recorder.rb).
struct Row {
    std::int64_t id;
    std::string name;
    std::optional<std::string> note;
    std::optional<std::string> data;         // bytes inserted
    std::optional<std::string> data_base64;  // what the job gets
    std::optional<std::string> price;        // inserted; the job gets a BigDecimal of it
    std::optional<std::string> seen;         // DATETIME(3) inserted
    std::optional<std::string> seen_utc;     // the job's Time, utc.iso8601(6)
    std::optional<std::string> born;         // DATE
};

std::vector<Row> rows_up_to(int count) {
    std::vector<Row> rows{
        {1, "Zo\xc3\xab \xe6\xbc\xa2\xe5\xad\x97 \xf0\x9f\x8e\x89 \xe2\x80\xa8 end",
         "line1\nline2\t\"quoted\" \\back\\slash \x01\x1f\x7f end", std::string("\x00\xff\x80\n\"", 5), "AP+ACiI=",
         "12345.67", "2024-05-01 12:00:00.250", "2024-05-01T12:00:00.250000Z", "1990-01-31"},
        {2, "O'Brien \"Bobby\" _aj_serialized", std::nullopt, std::nullopt, std::nullopt, "-0.50", std::nullopt,
         std::nullopt, std::nullopt},
        {3, "", "{\"_aj_symbol_keys\": [\"x\"]}", std::string(), "", "0.00", "1999-12-31 23:59:59.999",
         "1999-12-31T23:59:59.999000Z", "2000-02-29"},
        {4, "NUL in text", std::string("a\0b", 3), std::string("\0", 1), "AA==", std::nullopt, "2030-06-15 00:00:00",
         "2030-06-15T00:00:00.000000Z", std::nullopt},
    };
    for (int id = static_cast<int>(rows.size()) + 1; id <= count; ++id)
        rows.push_back({id, "row " + std::to_string(id), std::nullopt, std::nullopt, std::nullopt,
                        std::to_string(id) + ".25", std::nullopt, std::nullopt, std::nullopt});
    return rows;
}

// Empty when the job received `row` intact: each value, and the Ruby class ActiveJob gave it.
std::string row_difference(const rapidjson::Value& run, const Row& row) {
    const auto& values = run["row"];
    const auto& classes = run["classes"];
    const auto is_time = [&](const char* name) {
        for (const auto& time : run["times"].GetArray())
            if (text_of(time) == name) return true;
        return false;
    };
    const auto field = [&](const char* name, const std::optional<std::string>& want, const char* ruby_class) {
        if (!values.HasMember(name) || !classes.HasMember(name)) return std::string(name) + " is missing";
        if (!want) return values[name].IsNull() ? std::string() : std::string(name) + " should be nil";
        // TimeWithZoneSerializer gives a TimeWithZone in the zone of the app (Rails' config.time_zone), and
        // a plain Time where no zone is set, as in this worker: either is a Time (is_a?).
        if (std::string_view(ruby_class) == "Time") {
            if (!is_time(name)) return std::string(name) + " is a " + text_of(classes[name]) + ", not a Time";
        } else if (text_of(classes[name]) != ruby_class)
            return std::string(name) + " is a " + text_of(classes[name]) + ", not a " + ruby_class;
        if (!values[name].IsString()) return std::string(name) + " is not a string";
        return text_of(values[name]) == *want ? "" : std::string(name) + " is '" + text_of(values[name]) + "'";
    };
    for (const auto& difference :
         {field("name", row.name, "String"), field("note", row.note, "String"), field("data", row.data_base64, "String"),
          field("seen", row.seen_utc, "Time"), field("born", row.born, "Date")})
        if (!difference.empty()) return difference;
    if (!row.price) return values["price"].IsNull() ? "" : "price should be nil";
    if (text_of(classes["price"]) != "BigDecimal") return "price is a " + text_of(classes["price"]);
    return std::stod(text_of(values["price"])) == std::stod(*row.price) ? "" : "price is " + text_of(values["price"]);
}

class ActiveJobWorkerTest : public RealWorkerTest {
protected:
    void make_table(int count) {
        table_ = tables().create("activejob",
                                 "(id INT PRIMARY KEY, name VARCHAR(200) CHARACTER SET utf8mb4 NOT NULL, "
                                 "note TEXT CHARACTER SET utf8mb4 NULL, data VARBINARY(64) NULL, "
                                 "price DECIMAL(12,2) NULL, seen DATETIME(3) NULL, born DATE NULL)");
        rows_ = rows_up_to(count);
        for (const auto& row : rows_) insert_row(row.id, row.name, {&row.note, &row.data, &row.price, &row.seen, &row.born});
    }

    CliRun backfill(std::vector<std::string> more) {
        more.insert(more.begin(), {"--format", "activejob"});
        return RealWorkerTest::backfill(activejob_db, more);
    }

    std::unique_ptr<WorkerProcess> start_sidekiq() {
        return RealWorkerTest::start_sidekiq(activejob_db, "activejob_recorder.rb", 2, true);
    }

    std::vector<rapidjson::Document> wait_for_runs(std::size_t count, WorkerProcess& worker) {
        return RealWorkerTest::wait_for_runs(activejob_db, count, worker);
    }

    void expect_each_row_once(const std::vector<rapidjson::Document>& runs, const WorkerProcess& worker) {
        std::map<std::int64_t, int> seen;
        std::set<std::string> job_ids;
        const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        for (const auto& run : runs) {
            ASSERT_TRUE(run.HasMember("row") && run["row"].HasMember("id") && run["row"]["id"].IsInt64())
                << worker.describe();
            const std::int64_t id = run["row"]["id"].GetInt64();
            ASSERT_GE(id, 1);
            ASSERT_LE(id, static_cast<std::int64_t>(rows_.size()));
            ++seen[id];
            EXPECT_EQ(row_difference(run, rows_[static_cast<std::size_t>(id - 1)]), "") << "row " << id;
            EXPECT_TRUE(run["string_keys"].IsTrue()) << "the row's keys are strings, as with --format sidekiq";
            const auto& job = run["job"];
            EXPECT_EQ(text_of(job["class"]), wrapper);
            EXPECT_EQ(text_of(job["wrapped"]), job_class);
            EXPECT_EQ(text_of(run["queue_name"]), queue_);
            EXPECT_EQ(run["executions"].GetInt(), 1) << "ActiveJob counts this first run";
            const std::string job_id = text_of(run["job_id"]);
            EXPECT_TRUE(std::regex_match(job_id, uuid)) << job_id;
            job_ids.insert(job_id);
        }
        for (const auto& row : rows_) EXPECT_EQ(seen[row.id], 1) << "row " << row.id << " ran that many times";
        EXPECT_EQ(job_ids.size(), runs.size()) << "every job has its own job_id";
    }

    std::vector<Row> rows_;
};

TEST_F(ActiveJobWorkerTest, ActiveJobPerformsEveryRowOnceWithRubyTypes) {
    make_table(60);
    auto worker = start_sidekiq();
    if (!worker) GTEST_SKIP() << "sidekiq is not installed: bash scripts/setup.sh installs ruby-sidekiq";
    const CliRun run = backfill({"--job-class", job_class, "--workers", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_TRUE(db(activejob_db).command({"SISMEMBER", "queues", queue_}).integer) << "the queue is in Sidekiq's set";
    expect_each_row_once(wait_for_runs(rows_.size(), *worker), *worker);
    EXPECT_EQ(db(activejob_db).command({"LLEN", "queue:" + queue_}).integer, 0);
    EXPECT_EQ(db(activejob_db).command({"ZCARD", "retry"}).integer, 0) << "no job failed\n" << worker->describe();
}

TEST_F(ActiveJobWorkerTest, DelayedRowsWaitInSidekiqsScheduleUntilDue) {
    make_table(10);
    auto worker = start_sidekiq();
    if (!worker) GTEST_SKIP() << "sidekiq is not installed: bash scripts/setup.sh installs ruby-sidekiq";
    const double written_at = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const CliRun run = backfill({"--job-class", job_class, "--delay", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    std::size_t scheduled = 0;
    for (const auto& member : db(activejob_db).command({"ZRANGE", "schedule", "0", "-1"}).elements) {
        if (member.text.find("\"queue\":\"" + queue_ + "\"") == std::string::npos) continue;
        ++scheduled;
        EXPECT_NE(member.text.find("\"scheduled_at\":\""), std::string::npos) << member.text;
    }
    EXPECT_EQ(scheduled, rows_.size());
    const auto runs = wait_for_runs(rows_.size(), *worker);
    expect_each_row_once(runs, *worker);
    for (const auto& ran : runs) EXPECT_GE(ran["ran_at"].GetDouble(), written_at + 2 - 0.01) << "ran before due";
}

TEST_F(ActiveJobWorkerTest, WhatActiveJobCannotReadIsRefused) {
    make_table(3);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{}, "--job-class"},
        {{"--job-class", "not::Constant"}, "Ruby constant path"},
        {{"--job-class", job_class, "--json-columns", "embed"}, "--json-columns"},
        {{"--job-class", job_class, "--push", "rpush"}, "--push"},
    };
    for (const auto& [flags, needle] : cases) expect_one_line_refusal(backfill(flags), needle);
    // A Hash with a key ActiveJob reserves fails to serialize in Rails; here the run stops before writing.
    table_ = tables().create("activejob_reserved", "(id INT PRIMARY KEY, _aj_serialized INT)");
    tables().execute(table_, "INSERT INTO {t} VALUES (1, 1)");
    const CliRun reserved = backfill({"--job-class", job_class});
    EXPECT_EQ(reserved.exit_code, 2) << reserved.describe();
    EXPECT_NE(reserved.err.find("_aj_serialized"), std::string::npos) << reserved.describe();
    EXPECT_EQ(lines(reserved.err).size(), 1u) << reserved.describe();
    EXPECT_EQ(db(activejob_db).command({"EXISTS", "queue:" + queue_}).integer, 0);
}

}  // namespace
}  // namespace rowpump::test
