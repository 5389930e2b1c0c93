// The worker options, each checked by the real worker that reads it: a real `sidekiq` (Debian's 6.4, with
// tests/workers/sidekiq_recorder.rb) honours "retry" 0 (a failure goes straight to `dead`), false and
// "dead" false (a failure is kept nowhere), and carries tags and custom fields to the job; a real
// `celery worker` (tests/workers/rowpump_test_tasks.py) receives kwargs, the routing key and each row's
// priority from a column (in kombu's order of lists), and revokes instead of running a task whose "expires"
// passed. Bad values and combinations exit 2 with one line.
//
// The databases are worker_formats_test.cpp's (11 for Sidekiq, 12 for Celery); every key or member this
// test writes carries its queue's name, and it deletes them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "integration/prepared_fixture.hpp"
#include "integration/real_worker_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int sidekiq_db = 11;
constexpr int celery_db = 12;

class WorkerOptionsTest : public Prepared<RealWorkerTest> {
protected:
    void prepare() override {
        table_ = tables().create("worker_options", "(id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, price DECIMAL(8,2))");
        tables().execute(table_, "INSERT INTO {t} SELECT seq, CONCAT('row ', seq), seq + 0.25 FROM seq_1_to_4");
    }

    // One thread: jobs run one after another, in the order they were written.
    std::unique_ptr<WorkerProcess> start_sidekiq() {
        return RealWorkerTest::start_sidekiq(sidekiq_db, "sidekiq_recorder.rb", 1, false);
    }
    std::unique_ptr<WorkerProcess> start_celery() { return RealWorkerTest::start_celery(celery_db); }

    // Adds the column `urgency` of `type`, set to `value` (SQL over id), and backfills Celery tasks with it
    // as their priority column.
    CliRun backfill_by_urgency(const std::string& type, const std::string& value) {
        tables().execute(table_, "ALTER TABLE {t} ADD COLUMN urgency " + type + " NULL");
        tables().execute(table_, "UPDATE {t} SET urgency = " + value);
        // One worker: the table's four rows are one page.
        return backfill(celery_db, {"--format", "celery", "--task", "rowpump_test.record", "--celery-priority-column",
                                    "urgency", "--workers", "1"});
    }
};

TEST_F(WorkerOptionsTest, SidekiqRetryZeroSendsAFailedJobStraightToDeadWithItsTagsAndFields) {
    const CliRun run = backfill(sidekiq_db, {"--format", "sidekiq", "--job-class", "RowpumpTest::Failer",
                                             "--sidekiq-retry", "0", "--sidekiq-tags", "backfill,nightly",
                                             "--sidekiq-field", "source=rowpump", "--sidekiq-field", "batch=7"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    auto worker = start_sidekiq();
    if (!worker) GTEST_SKIP() << "sidekiq is not installed: bash scripts/setup.sh installs ruby-sidekiq";
    wait_until_done([&] { return ours(db(sidekiq_db), "dead").size() >= 4; }, *worker);
    EXPECT_EQ(ours(db(sidekiq_db), "dead").size(), 4u);
    EXPECT_TRUE(ours(db(sidekiq_db), "retry").empty()) << "retry 0: no retry";
    const auto runs = records(sidekiq_db, record_key_);
    EXPECT_EQ(runs.size(), 4u) << "each job ran once\n" << worker->describe();
    for (const auto& ran : runs) {
        const auto& job = ran["job"];
        EXPECT_TRUE(job["retry"].IsInt() && job["retry"].GetInt() == 0);
        ASSERT_TRUE(job["tags"].IsArray() && job["tags"].Size() == 2);
        EXPECT_EQ(text_of(job["tags"][0]), "backfill");
        EXPECT_EQ(text_of(job["tags"][1]), "nightly");
        EXPECT_EQ(text_of(job["source"]), "rowpump");
        EXPECT_EQ(text_of(job["batch"]), "7");
    }
}

TEST_F(WorkerOptionsTest, SidekiqRetryFalseAndDeadFalseKeepAFailedJobNowhere) {
    const std::vector<std::string> failer{"--format", "sidekiq", "--job-class", "RowpumpTest::Failer"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), failer.begin(), failer.end());
        return more;
    };
    ASSERT_EQ(backfill(sidekiq_db, with({"--where", "id <= 2", "--sidekiq-retry", "false"})).exit_code, 0);
    ASSERT_EQ(backfill(sidekiq_db, with({"--where", "id > 2", "--sidekiq-retry", "0", "--sidekiq-dead", "false"}))
                  .exit_code,
              0);
    // Written last and run last by the one Sidekiq thread: when it has run, the failures were handled.
    const CliRun sentinel = backfill(sidekiq_db, {"--format", "sidekiq", "--job-class", "RowpumpTest::Recorder",
                                                  "--where", "id = 1"});
    ASSERT_EQ(sentinel.exit_code, 0) << sentinel.describe();
    auto worker = start_sidekiq();
    if (!worker) GTEST_SKIP() << "sidekiq is not installed: bash scripts/setup.sh installs ruby-sidekiq";
    wait_until_done([&] { return length(sidekiq_db, record_key_) >= 5; }, *worker);
    EXPECT_EQ(length(sidekiq_db, record_key_), 5u);
    EXPECT_TRUE(ours(db(sidekiq_db), "dead").empty()) << "retry false and dead false keep nothing";
    EXPECT_TRUE(ours(db(sidekiq_db), "retry").empty());
    EXPECT_EQ(length(sidekiq_db, "queue:" + queue_), 0u);
}

TEST_F(WorkerOptionsTest, CeleryGetsKwargsFromColumnsAndTheRoutingKey) {
    const CliRun run = backfill(celery_db, {"--format", "celery", "--task", "rowpump_test.record", "--celery-kwargs",
                                            "name,price", "--routing-key", "rowpump.backfill"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    auto worker = start_celery();
    if (!worker) GTEST_SKIP() << "celery is not installed: bash scripts/setup.sh installs celery and python3-celery";
    wait_until_done([&] { return length(celery_db, record_key_) >= 4; }, *worker);
    const auto runs = records(celery_db, record_key_);
    ASSERT_EQ(runs.size(), 4u) << worker->describe();
    std::map<std::int64_t, int> seen;
    for (const auto& ran : runs) {
        const auto& row = ran["row"];
        ASSERT_TRUE(row.IsObject() && row.MemberCount() == 1 && row["id"].IsInt64()) << "only id stays in the row";
        const std::int64_t id = row["id"].GetInt64();
        ++seen[id];
        const auto& kwargs = ran["kwargs"];
        EXPECT_EQ(text_of(kwargs["name"]), "row " + std::to_string(id));
        EXPECT_DOUBLE_EQ(kwargs["price"].GetDouble(), static_cast<double>(id) + 0.25);
        EXPECT_EQ(text_of(ran["routing_key"]), "rowpump.backfill");
    }
    for (std::int64_t id = 1; id <= 4; ++id) EXPECT_EQ(seen[id], 1) << "row " << id;
}

// kombu's Redis transport keeps priority steps 3, 6 and 9 in lists of their own, Q\x06\x16<step>, which its
// workers BRPOP after Q: the real worker gets each message with its priority, and runs step 0 first.
TEST_F(WorkerOptionsTest, CeleryPriorityGoesToTheListKombuReadsForItsStep) {
    const CliRun low = backfill(celery_db, {"--format", "celery", "--task", "rowpump_test.record", "--celery-priority",
                                            "7", "--where", "id <= 2"});
    ASSERT_EQ(low.exit_code, 0) << low.describe();
    const CliRun high = backfill(celery_db, {"--format", "celery", "--task", "rowpump_test.record", "--celery-priority",
                                             "0", "--where", "id > 2"});
    ASSERT_EQ(high.exit_code, 0) << high.describe();
    const std::string step6 = queue_ + "\x06\x16" + "6";
    EXPECT_EQ(length(celery_db, step6), 2u) << "priority 7 is kombu's step 6";
    EXPECT_EQ(length(celery_db, queue_), 2u) << "priority 0 is the list Q itself";
    auto worker = start_celery();
    if (!worker) GTEST_SKIP() << "celery is not installed: bash scripts/setup.sh installs celery and python3-celery";
    wait_until_done([&] { return length(celery_db, record_key_) >= 4; }, *worker);
    const auto runs = records(celery_db, record_key_);
    ASSERT_EQ(runs.size(), 4u) << worker->describe();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::int64_t id = runs[i]["row"]["id"].GetInt64();
        EXPECT_EQ(runs[i]["priority"].GetInt(), id <= 2 ? 7 : 0) << "row " << id;
        EXPECT_EQ(id > 2, i < 2) << "the worker takes Q before Q\\x06\\x166: row " << id << " ran " << i + 1 << "th";
    }
    EXPECT_EQ(length(celery_db, step6), 0u);
}

// --celery-priority-column: each row's message carries the row's priority and sits in its step's list; the
// real worker receives each with that priority and takes the lists step 0 first (Q, then 3, then 9).
TEST_F(WorkerOptionsTest, CeleryPriorityColumnSendsEachRowToItsOwnStep) {
    const CliRun run = backfill_by_urgency("TINYINT", "ELT(id, 9, NULL, 4, 0)");
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const std::string step3 = queue_ + "\x06\x16" + "3";
    const std::string step9 = queue_ + "\x06\x16" + "9";
    EXPECT_EQ(length(celery_db, queue_), 2u) << "priorities NULL and 0: the list Q itself";
    EXPECT_EQ(length(celery_db, step3), 1u) << "priority 4 is kombu's step 3";
    EXPECT_EQ(length(celery_db, step9), 1u);
    auto worker = start_celery();
    if (!worker) GTEST_SKIP() << "celery is not installed: bash scripts/setup.sh installs celery and python3-celery";
    wait_until_done([&] { return length(celery_db, record_key_) >= 4; }, *worker);
    const auto runs = records(celery_db, record_key_);
    ASSERT_EQ(runs.size(), 4u) << worker->describe();
    const std::map<std::int64_t, int> priority_of{{1, 9}, {2, 0}, {3, 4}, {4, 0}};
    std::vector<std::int64_t> order;
    for (const auto& ran : runs) {
        const std::int64_t id = ran["row"]["id"].GetInt64();
        order.push_back(id);
        EXPECT_EQ(ran["priority"].GetInt(), priority_of.at(id)) << "row " << id;
    }
    ASSERT_EQ(order.size(), 4u);
    EXPECT_EQ(std::vector<std::int64_t>(order.begin() + 2, order.end()), (std::vector<std::int64_t>{3, 1}))
        << "Q's two rows first, then step 3's, then step 9's";
    EXPECT_EQ(length(celery_db, step3) + length(celery_db, step9), 0u);
}

// A priority kombu would clamp (here 12) stops the run before its page is written, naming the row's key
// and the column; nothing of that page is in any list.
TEST_F(WorkerOptionsTest, CeleryPriorityColumnOutOfRangeNamesTheRowAndWritesNothingOfItsPage) {
    const CliRun run = backfill_by_urgency("INT", "IF(id = 3, 12, 1)");
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    const auto err = lines(run.err);
    ASSERT_EQ(err.size(), 1u) << "one clear line\n" << run.describe();
    EXPECT_NE(err[0].find("(id) = (3) holds 12 in `urgency`"), std::string::npos) << run.describe();
    EXPECT_NE(err[0].find("--celery-priority-column"), std::string::npos) << run.describe();
    for (const char* step : {"", "3", "6", "9"})
        EXPECT_EQ(length(celery_db, *step ? queue_ + "\x06\x16" + step : queue_), 0u)
            << "the page holding row 3 is all four rows";
}

TEST_F(WorkerOptionsTest, CeleryRevokesATaskWhoseExpiryPassedBeforeItStarted) {
    const CliRun expiring = backfill(celery_db, {"--format", "celery", "--task", "rowpump_test.record",
                                                 "--celery-expires", "1"});
    ASSERT_EQ(expiring.exit_code, 0) << expiring.describe();
    // Their expiry is a time, not an event: wait until it has passed, with a margin for clock rounding.
    std::this_thread::sleep_for(1500ms);
    const CliRun fresh = backfill(celery_db, {"--format", "celery", "--task", "rowpump_test.record",
                                              "--celery-expires", "600"});
    ASSERT_EQ(fresh.exit_code, 0) << fresh.describe();
    auto worker = start_celery();
    if (!worker) GTEST_SKIP() << "celery is not installed: bash scripts/setup.sh installs celery and python3-celery";
    const std::string revoked_key = record_key_ + ":revoked";
    wait_until_done([&] { return length(celery_db, record_key_) >= 4 && length(celery_db, revoked_key) >= 4; },
                    *worker);
    EXPECT_EQ(length(celery_db, record_key_), 4u) << "only the fresh tasks ran";
    for (const auto& revoked : records(celery_db, revoked_key)) EXPECT_TRUE(revoked["expired"].IsTrue());
    for (const auto& ran : records(celery_db, record_key_)) EXPECT_TRUE(ran["expires"].IsString());
}

TEST_F(WorkerOptionsTest, BadWorkerOptionsAreRefusedWithOneLine) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--format", "celery", "--task", "t", "--sidekiq-retry", "3"}, "--sidekiq-retry"},
        {{"--format", "sidekiq", "--job-class", "A", "--sidekiq-retry", "-1"}, "--sidekiq-retry"},
        {{"--format", "sidekiq", "--job-class", "A", "--sidekiq-retry", "often"}, "--sidekiq-retry"},
        {{"--format", "sidekiq", "--job-class", "A", "--sidekiq-dead", "no"}, "--sidekiq-dead"},
        {{"--format", "sidekiq", "--job-class", "A", "--sidekiq-field", "jid=1"}, "jid"},
        {{"--format", "sidekiq", "--job-class", "A", "--sidekiq-field", "retry=1"}, "--sidekiq-retry"},
        {{"--format", "sidekiq", "--job-class", "A", "--sidekiq-field", "novalue"}, "KEY=VALUE"},
        {{"--format", "json", "--sidekiq-tags", "a"}, "--sidekiq-tags"},
        {{"--format", "sidekiq", "--job-class", "A", "--celery-expires", "5"}, "--celery-expires"},
        {{"--format", "activejob", "--job-class", "A", "--routing-key", "k"}, "--routing-key"},
        {{"--format", "celery", "--task", "t", "--celery-kwargs", "nope"}, "nope"},
        {{"--format", "celery", "--task", "t", "--celery-kwargs", "name,name"}, "twice"},
        {{"--format", "celery", "--task", "t", "--celery-expires", "-3"}, "--celery-expires"},
        {{"--format", "celery", "--task", "t", "--celery-expires", "5", "--delay", "10"}, "--celery-expires"},
        {{"--format", "celery", "--task", "t", "--celery-priority", "10"}, "--celery-priority"},
        {{"--format", "celery", "--task", "t", "--celery-priority", "high"}, "--celery-priority"},
        {{"--format", "sidekiq", "--job-class", "A", "--celery-priority", "3"}, "--celery-priority"},
        {{"--format", "celery", "--task", "t", "--celery-priority", "3", "--celery-priority-column", "id"},
         "--celery-priority-column"},
        {{"--format", "celery", "--task", "t", "--celery-priority-column", "price"}, "--celery-priority-column 'price'"},
        {{"--format", "celery", "--task", "t", "--celery-priority-column", "nope"}, "nope"},
        {{"--format", "sidekiq", "--job-class", "A", "--celery-priority-column", "id"}, "--celery-priority-column"},
    };
    for (const auto& [flags, needle] : cases) expect_one_line_refusal(backfill(celery_db, flags), needle);
    EXPECT_EQ(length(celery_db, queue_), 0u);
}

}  // namespace
}  // namespace rowpump::test
