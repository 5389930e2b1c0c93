// --format bullmq run by a real BullMQ 5 Worker in Node (tests/workers/bullmq/record_worker.js, from the
// package-lock.json beside it, installed by scripts/setup.sh): every row processed once with its values as
// job.data, delayed rows not before their delay, the keys Queue.addBulk leaves (job hash fields, opts,
// events, meta, marker), ids from the row with --bullmq-job-id and BullMQ's own deduplication of them, a
// SIGKILLed --job-id run resumed to each job once, and the refusals of what BullMQ could not read.
//
// BullMQ's queue names hold no ':', so the queue here is rp_bullmq_<test>_<pid> under the prefix
// rp_test_bull, and each test deletes those keys. The worker's end is an event: BullMQ's `completed` set
// holding every job while wait, active and delayed are empty, so nothing is left to run twice.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/worker_process.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* prefix = "rp_test_bull";
const std::string worker_dir = ROWPUMP_SOURCE_DIR "/tests/workers/bullmq";

std::string text_of(const rapidjson::Value& value) { return std::string(value.GetString(), value.GetStringLength()); }

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

class BullmqWorkerTest : public MySqlRedisTest {
protected:
    void SetUp() override {
        MySqlRedisTest::SetUp();
        if (HasFatalFailure()) return;
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        bull_queue_ = std::string("rp_bullmq_") + test->name() + "_" + std::to_string(::getpid());
        keys_ = std::string(prefix) + ":" + bull_queue_ + ":";
        record_key_ = keys_ + "rp_ran";
        clear_bull();
    }
    void TearDown() override {
        if (redis_) clear_bull();
        MySqlRedisTest::TearDown();
    }
    void clear_bull() { delete_keys(*redis_, keys_ + "*"); }

    // id INT key, name, note (NULL-able, tricky text), price DECIMAL.
    void make_table(int rows) {
        table_ = tables().create("bullmq", "(id INT PRIMARY KEY, name VARCHAR(60) CHARACTER SET utf8mb4 NOT NULL, "
                                           "note TEXT CHARACTER SET utf8mb4 NULL, price DECIMAL(10,2) NULL)");
        tables().execute(table_, "INSERT INTO {t} SELECT seq, CONCAT('row-', seq), NULL, seq / 4 FROM seq_1_to_" +
                                     std::to_string(rows));
        tables().execute(table_, "UPDATE {t} SET note = 'Zo\xc3\xab \xf0\x9f\x8e\x89 \"q\" \\\\ \\n end' WHERE id = 1");
    }

    std::vector<std::string> backfill_args(const std::vector<std::string>& more) const {
        std::vector<std::string> args{"-q",      "backfill",   "--mysql",         mysql_url_, "--table", table_,
                                      "--sink",  redis_url_,   "--queue",         bull_queue_, "--format", "bullmq",
                                      "--job-name", "sync-row", "--bullmq-prefix", prefix};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }

    // The real Worker, or nullptr (the test is skipped) when node or the npm install is missing.
    std::unique_ptr<WorkerProcess> start_worker() {
        const auto node = find_program("node");
        if (!node || ::access((worker_dir + "/node_modules/bullmq").c_str(), F_OK) != 0) return nullptr;
        return std::make_unique<WorkerProcess>(std::vector<std::string>{*node, worker_dir + "/record_worker.js"},
                                               EnvOverride{{"RP_REDIS_URL", redis_url_},
                                                           {"RP_QUEUE", bull_queue_},
                                                           {"RP_PREFIX", prefix},
                                                           {"RP_RECORD_KEY", record_key_}});
    }

    // Waits until BullMQ has completed `count` jobs and holds none waiting, active or delayed; returns the
    // Worker's records.
    std::vector<rapidjson::Document> wait_until_done(std::size_t count, WorkerProcess& worker) {
        const auto done = [&] {
            return redis_->command({"ZCARD", keys_ + "completed"}).integer >= static_cast<long long>(count) &&
                   redis_->command({"LLEN", keys_ + "wait"}).integer == 0 &&
                   redis_->command({"LLEN", keys_ + "active"}).integer == 0 &&
                   redis_->command({"ZCARD", keys_ + "delayed"}).integer == 0;
        };
        const bool finished = wait_until([&] { return done() || !worker.running(); }, 120s);
        EXPECT_TRUE(finished && worker.running()) << "completed "
                                                  << redis_->command({"ZCARD", keys_ + "completed"}).integer << " of "
                                                  << count << "\n" << worker.describe();
        std::vector<rapidjson::Document> runs;
        for (const auto& item : list_items(*redis_, record_key_)) {
            rapidjson::Document run;
            run.Parse(item.data(), item.size());
            EXPECT_FALSE(run.HasParseError()) << item;
            if (!run.HasParseError()) runs.push_back(std::move(run));
        }
        EXPECT_EQ(runs.size(), count) << worker.describe();
        return runs;
    }

    // Each row id 1..rows processed once, its data the row's JSON; returns the job ids by row.
    std::map<std::int64_t, std::string> expect_each_row_once(const std::vector<rapidjson::Document>& runs, int rows) {
        std::map<std::int64_t, int> seen;
        std::map<std::int64_t, std::string> ids;
        for (const auto& run : runs) {
            EXPECT_EQ(text_of(run["name"]), "sync-row");
            const auto& data = run["data"];
            const std::int64_t id = data["id"].GetInt64();
            ++seen[id];
            ids[id] = text_of(run["id"]);
            EXPECT_EQ(text_of(data["name"]), "row-" + std::to_string(id));
            EXPECT_DOUBLE_EQ(data["price"].GetDouble(), static_cast<double>(id) / 4);
            if (id == 1) EXPECT_EQ(text_of(data["note"]), "Zo\xc3\xab \xf0\x9f\x8e\x89 \"q\" \\ \n end");
            else EXPECT_TRUE(data["note"].IsNull());
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows));
        for (const auto& [id, count] : seen) EXPECT_EQ(count, 1) << "row " << id;
        return ids;
    }

    std::string bull_queue_;
    std::string keys_;
    std::string record_key_;
    std::string table_;
};

TEST_F(BullmqWorkerTest, WorkerProcessesEveryRowOnceWithTheKeysAddBulkLeaves) {
    make_table(300);
    auto worker = start_worker();
    if (!worker) GTEST_SKIP() << "node or tests/workers/bullmq/node_modules is missing: run scripts/setup.sh";
    const CliRun run = run_rowpump(backfill_args({"--page-size", "70"}));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const auto runs = wait_until_done(300, *worker);
    const auto ids = expect_each_row_once(runs, 300);
    // BullMQ's counter: ids 1..300, each once, as its digits (the script makes them without formatting each
    // number, across pages of 70 and the hundreds), and the counter left at 300.
    std::set<std::string> distinct, expected;
    for (const auto& [row, id] : ids) distinct.insert(id);
    for (int id = 1; id <= 300; ++id) expected.insert(std::to_string(id));
    EXPECT_EQ(distinct, expected);
    EXPECT_EQ(redis_->command({"GET", keys_ + "id"}).text, "300");
    for (const auto& job : runs) {
        EXPECT_EQ(job["delay"].GetInt64(), 0);
        EXPECT_FALSE(job["opts"].HasMember("delay"));
        EXPECT_EQ(job["opts"]["attempts"].GetInt(), 0) << "as Queue.addBulk's default options";
    }
    // What a Worker does not read but QueueEvents and dashboards do.
    EXPECT_EQ(redis_->command({"HGET", keys_ + "meta", "opts.maxLenEvents"}).text, "10000");
    const auto events = redis_->command({"XRANGE", keys_ + "events", "-", "+", "COUNT", "2"});
    ASSERT_EQ(events.elements.size(), 2u);
    EXPECT_EQ(events.elements[0].elements[1].elements[1].text, "added");
    EXPECT_EQ(events.elements[1].elements[1].elements[1].text, "waiting");
}

TEST_F(BullmqWorkerTest, DelayedRowsRunAfterTheirDelay) {
    make_table(40);
    auto worker = start_worker();
    if (!worker) GTEST_SKIP() << "node or tests/workers/bullmq/node_modules is missing: run scripts/setup.sh";
    const std::int64_t started = now_ms();
    const CliRun run = run_rowpump(backfill_args({"--delay", "2", "--page-size", "15"}));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const auto runs = wait_until_done(40, *worker);
    expect_each_row_once(runs, 40);
    for (const auto& run_record : runs) {
        // BullMQ zeroes a job's `delay` field when it promotes it; its opts keep the delay it was added with.
        ASSERT_TRUE(run_record["opts"].HasMember("delay")) << "a delayed job carries its delay";
        const std::int64_t delay = run_record["opts"]["delay"].GetInt64();
        EXPECT_GE(delay, 1000);
        const std::int64_t due = run_record["timestamp"].GetInt64() + delay;
        EXPECT_GE(run_record["ran"].GetInt64(), due) << "a job ran before its delay";
        EXPECT_GE(run_record["ran"].GetInt64(), started + 2000);
    }
}

// Ids from the row: BullMQ skips an id whose job exists, so a second run adds nothing.
TEST_F(BullmqWorkerTest, RowIdsKeepBullmqDeduplication) {
    make_table(50);
    const auto args = backfill_args({"--bullmq-job-id", "order-{id}"});
    const CliRun first = run_rowpump(args);
    ASSERT_EQ(first.exit_code, 0) << first.describe();
    const CliRun again = run_rowpump(args);
    ASSERT_EQ(again.exit_code, 0) << again.describe();
    EXPECT_EQ(redis_->command({"LLEN", keys_ + "wait"}).integer, 50) << "the second run added no job";
    rapidjson::Document opts;
    opts.Parse(redis_->command({"HGET", keys_ + "order-7", "opts"}).text.c_str());
    ASSERT_TRUE(opts.IsObject());
    EXPECT_EQ(opts.MemberCount(), 2u) << "addBulk's job options: attempts and the custom id";
    EXPECT_EQ(opts["attempts"].GetInt(), 0);
    EXPECT_EQ(text_of(opts["jobId"]), "order-7");
    auto worker = start_worker();
    if (!worker) GTEST_SKIP() << "node or tests/workers/bullmq/node_modules is missing: run scripts/setup.sh";
    const auto ids = expect_each_row_once(wait_until_done(50, *worker), 50);
    for (const auto& [row, id] : ids) EXPECT_EQ(id, "order-" + std::to_string(row));
}

// A page of more jobs than one script call adds (1,000) goes as several calls in one MULTI/EXEC: the counter's
// ids stay 1..N, each once, all in wait, and a Worker runs every row once.
TEST_F(BullmqWorkerTest, APageOfMoreJobsThanAScriptCallIsAddedWhole) {
    constexpr int rows = 2500;
    make_table(rows);
    const CliRun run = run_rowpump(backfill_args({"--page-size", "2500", "--workers", "1"}));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(redis_->command({"GET", keys_ + "id"}).text, std::to_string(rows));
    const auto wait = redis_->command({"LRANGE", keys_ + "wait", "0", "-1"});
    std::set<std::string> ids, expected;
    for (const auto& id : wait.elements) ids.insert(id.text);
    for (int id = 1; id <= rows; ++id) expected.insert(std::to_string(id));
    EXPECT_EQ(wait.elements.size(), static_cast<std::size_t>(rows));
    EXPECT_EQ(ids, expected);
    auto worker = start_worker();
    if (!worker) GTEST_SKIP() << "node or tests/workers/bullmq/node_modules is missing: run scripts/setup.sh";
    expect_each_row_once(wait_until_done(rows, *worker), rows);
}

// A --job-id run SIGKILLed mid-way, resumed: each row is one job, run once. With BullMQ's counter ids the
// page's MULTI (its script and its checkpoint) alone keeps a row from being added twice; with ids from the
// row, BullMQ's own rule holds as well.
class BullmqKilledRunTest : public BullmqWorkerTest {
protected:
    void kill_and_resume(const std::vector<std::string>& id_flags) {
        constexpr int rows = 4000;
        make_table(rows);
        auto worker = start_worker();
        if (!worker) GTEST_SKIP() << "node or tests/workers/bullmq/node_modules is missing: run scripts/setup.sh";
        std::vector<std::string> more = id_flags;
        more.insert(more.end(), {"--job-id", job_id_, "--partitions", "4", "--workers", "2", "--page-size", "100",
                                 "--page-time-ms", "0", "--rate", "2000"});
        const auto args = backfill_args(more);
        {
            CliProcess child(args);
            // Killed once BullMQ's counter passed 100 jobs: pages are in.
            ASSERT_TRUE(wait_until(
                [&] { return redis_->command({"GET", keys_ + "id"}).text.size() >= 3 || child.poll().has_value(); },
                60s));
            ASSERT_FALSE(child.poll()) << "the run ended before it could be killed\n" << child.describe();
            EXPECT_EQ(child.kill(), -SIGKILL);
        }
        const CliRun resumed = run_rowpump(args);
        ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
        ids_ = expect_each_row_once(wait_until_done(rows, *worker), rows);
    }
    std::map<std::int64_t, std::string> ids_;
};

TEST_F(BullmqKilledRunTest, CounterIdsOfAKilledAndResumedRunAreEachOnce) {
    kill_and_resume({});
    if (IsSkipped() || HasFatalFailure()) return;
    EXPECT_EQ(redis_->command({"GET", keys_ + "id"}).text, "4000") << "no job was added twice";
}

TEST_F(BullmqKilledRunTest, RowIdsOfAKilledAndResumedRunAreEachOnce) {
    kill_and_resume({"--bullmq-job-id", "row-{id}"});
    if (IsSkipped() || HasFatalFailure()) return;
    for (const auto& [row, id] : ids_) EXPECT_EQ(id, "row-" + std::to_string(row));
}

TEST_F(BullmqWorkerTest, RefusesWhatBullmqCannotRead) {
    make_table(3);
    const auto refused = [&](const std::vector<std::string>& args, const std::string& says) {
        const CliRun run = run_rowpump(args);
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        EXPECT_NE(run.err.find(says), std::string::npos) << run.describe();
        EXPECT_EQ(lines(run.err).size(), 1u) << run.describe();
    };
    std::vector<std::string> no_name = backfill_args({});
    no_name.erase(no_name.begin() + 12, no_name.begin() + 14);
    refused(no_name, "--job-name");
    refused(backfill_args({"--bullmq-job-id", "{nope}"}), "not a column");
    refused(backfill_args({"--bullmq-job-id", "fixed"}), "names no column");
    refused(backfill_args({"--bullmq-job-id", "{id}"}), "integer ids");
    refused(backfill_args({"--bullmq-job-id", "a:{id}"}), "':'");
    refused(backfill_args({"--push", "lpush"}), "--push");
    refused(backfill_args({"--priority-column", "id", "--priority", "hi:2,lo"}), "priorit");
    std::vector<std::string> to_stdout = backfill_args({});
    to_stdout[7] = "stdout";
    refused(to_stdout, "use a redis:// sink");
    std::vector<std::string> sidekiq{"-q", "backfill", "--mysql", mysql_url_, "--table", table_, "--sink", redis_url_,
                                     "--queue", bull_queue_, "--job-name", "x"};
    refused(sidekiq, "--job-name");
    EXPECT_TRUE(matching_keys(*redis_, keys_ + "*").empty()) << "nothing was written";
}

}  // namespace
}  // namespace rowpump::test
