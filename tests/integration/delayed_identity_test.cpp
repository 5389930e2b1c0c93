// Delayed tasks whose payloads repeat (a CSV of one low-cardinality column) must all survive the sorted
// set Q:delayed: each member carries its own tag (src/backend/redis/redis_delayed_member.hpp). Written through the plain
// sink, through the exactly-once ledger and by the CLI; promoted by RedisQueue::promote, by `queue
// promote` and by a consumer; and re-scheduled by failed retries: every task arrives as its bare
// payload, as many times as it was written. Tables rp_test_*, keys rp_test:*; all removed at the end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "rowpump/job.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int rows = 600;

class DelayedIdentityTest : public Prepared<MySqlRedisTest> {
protected:
    // k repeats: seven distinct payloads over 600 rows. Every due time is in the past, so a promote moves
    // them all at once.
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"delayed_ident", "(id INT PRIMARY KEY, k INT NOT NULL, due DATETIME NOT NULL)",
                           "INSERT INTO {t} SELECT seq, seq % 7, TIMESTAMP'2020-01-01 00:00:00' + INTERVAL seq "
                           "SECOND FROM seq_1_to_" + std::to_string(rows)};
    }
    void prepare() override {
        expected_ = keys_of("SELECT CAST(k AS CHAR) FROM `" + table_ + "`");
    }

    std::vector<std::string> keys_of(const std::string& sql) {
        std::vector<std::string> out;
        for (auto& row : tables().rows(sql)) out.push_back(row.at(0).value_or("<NULL>"));
        return out;
    }

    // The CSV of column k, due at the column `due`, over two ranges and two workers in small pages.
    JobSpec spec() {
        JobSpec spec;
        spec.mysql = options();
        spec.read.table = table_;
        spec.read.columns = {"k"};
        spec.read.page_size = 97;
        spec.read.target_page_time = 0ms;
        spec.format = Format::csv;
        spec.partitions = 2;
        spec.workers = 2;
        spec.sink.uri = redis_url_;
        spec.sink.queue = queue_;
        spec.route.due_column = "due";
        return spec;
    }

    long long delayed_count() { return redis_->command({"ZCARD", redis::delayed_set(queue_)}).integer; }
    std::vector<std::string> ready() { return list_items(*redis_, queue_); }
    std::uint64_t promote() {
        RedisQueueOptions queue;
        queue.queue = queue_;
        return RedisQueue(RedisOptions::from_url(redis_url_), queue).promote();
    }

    std::vector<std::string> expected_;
};

TEST_F(DelayedIdentityTest, PlainSinkKeepsEveryRepeatedPayloadAndPromoteGivesThemBackBare) {
    const JobSummary summary = run_job(spec());
    EXPECT_EQ(summary.rows_written, static_cast<std::uint64_t>(rows));
    EXPECT_EQ(delayed_count(), rows) << "delayed tasks with identical payloads collapsed";
    std::vector<std::string> payloads;
    for (const auto& task : delayed_tasks(*redis_, queue_)) payloads.push_back(task.member);
    EXPECT_EQ(multiset_difference(payloads, expected_), "");

    EXPECT_EQ(promote(), static_cast<std::uint64_t>(rows));
    EXPECT_EQ(delayed_count(), 0);
    EXPECT_EQ(multiset_difference(ready(), expected_), "");
}

TEST_F(DelayedIdentityTest, ExactlyOnceLedgerKeepsEveryRepeatedPayloadAndPromoteGivesThemBackBare) {
    JobSpec job = spec();
    job.job_id = job_id_;
    const JobSummary summary = run_job(job);
    EXPECT_EQ(summary.rows_written, static_cast<std::uint64_t>(rows));
    EXPECT_EQ(delayed_count(), rows) << "delayed tasks with identical payloads collapsed";

    // Each member is named after its range and its row's position there: the same in any attempt or
    // process. Positions of each range run 0, 1, 2, ... without a gap or a repeat.
    std::map<std::string, std::vector<std::uint64_t>> positions;  // writer hex -> sequences
    for (const auto& member : zset_members(*redis_, redis::delayed_set(queue_))) {
        ASSERT_EQ(member.member.substr(0, 4), "rp1:") << member.member;
        positions[member.member.substr(4, 16)].push_back(std::stoull(member.member.substr(20, 16), nullptr, 16));
    }
    ASSERT_EQ(positions.size(), 2u) << "one writer per range";
    for (std::size_t range = 0; range < 2; ++range) {
        const std::string tag = redis::delayed_member({redis::ledger_delayed_writer(job_id_, range), 0}, "");
        const std::string writer = tag.substr(4, 16);
        ASSERT_TRUE(positions.count(writer)) << "range " << range;
        auto& sequences = positions[writer];
        std::sort(sequences.begin(), sequences.end());
        for (std::size_t i = 0; i < sequences.size(); ++i) ASSERT_EQ(sequences[i], i) << "range " << range;
    }

    EXPECT_EQ(promote(), static_cast<std::uint64_t>(rows));
    EXPECT_EQ(multiset_difference(ready(), expected_), "");
}

TEST_F(DelayedIdentityTest, CliBackfillWithADelayKeepsEveryRowAndQueuePromoteDeliversThem) {
    // The report's command line: one repeating column, a fixed delay.
    const CliRun backfill = run_rowpump({"backfill", "--mysql", mysql_url_for_command_line(), "--table", table_,
                                         "--columns", "k", "--format", "csv", "--delay", "60", "--sink", redis_url_,
                                         "--queue", queue_});
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    EXPECT_EQ(delayed_count(), rows) << "delayed tasks with identical payloads collapsed";
    EXPECT_EQ(promote(), 0u) << "due in 60 s";

    // Let the minute pass: make every member due now.
    for (const auto& member : zset_members(*redis_, redis::delayed_set(queue_)))
        redis_->command({"ZADD", redis::delayed_set(queue_), "XX", "1", member.member});
    const CliRun promoted = run_rowpump({"queue", "promote", "--source", redis_url_, "--queue", queue_});
    ASSERT_EQ(promoted.exit_code, 0) << promoted.describe();
    EXPECT_EQ(promoted.out, "promoted " + std::to_string(rows) + "\n");
    EXPECT_EQ(delayed_count(), 0);
    EXPECT_EQ(multiset_difference(ready(), expected_), "");
}

TEST_F(DelayedIdentityTest, CliJobAndConsumerDeliverEveryRepeatedDelayedTaskOnce) {
    const CliRun backfill = run_rowpump({"backfill", "--mysql", mysql_url_for_command_line(), "--table", table_,
                                         "--columns", "k", "--format", "csv", "--due-column", "due", "--sink",
                                         redis_url_, "--queue", queue_, "--job-id", job_id_, "--workers", "2"});
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    EXPECT_EQ(delayed_count(), rows) << "delayed tasks with identical payloads collapsed";

    // The consumer's own promotion moves them; one worker appends the task lines of each batch it runs
    // (docs/consumers.md: `{"id":null,...,"payload":3}`, the CSV's one number as the JSON it is).
    const std::string outbox = fresh_temp_path("delayed_outbox");
    const CliRun consume = run_rowpump({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                                        "cat >> '" + outbox + "'", "--exec-batch", "100",
                                        "--until-empty"});
    ASSERT_EQ(consume.exit_code, 0) << consume.describe();
    std::vector<std::string> payloads;
    static const std::regex payload(R"re("payload":(.*)\}$)re");
    for (const std::string& line : file_lines(outbox)) {
        std::smatch match;
        if (std::regex_search(line, match, payload)) payloads.push_back(match[1]);
        else ADD_FAILURE() << "a task line without a payload: " << line;
    }
    EXPECT_EQ(multiset_difference(payloads, expected_), "") << consume.describe();
    EXPECT_EQ(delayed_count(), 0);
    EXPECT_EQ(ready(), std::vector<std::string>{});
    std::remove(outbox.c_str());
}

TEST_F(DelayedIdentityTest, IdenticalTasksThatFailBothComeBackAfterTheirBackoff) {
    redis_->command({"RPUSH", queue_, "same", "same"});
    RedisQueueOptions options;
    options.queue = queue_;
    options.retry.max_attempts = 5;  // identical payloads share one failure count: two failures here
    options.retry.backoff_base = 1ms;
    options.retry.backoff_cap = 1ms;
    options.retry.jitter = 0;
    RedisQueue queue(RedisOptions::from_url(redis_url_), options);
    const auto tasks = queue.claim(2);
    ASSERT_EQ(tasks.size(), 2u);
    EXPECT_EQ(queue.fail(tasks[0], "first"), FailOutcome::retried);
    EXPECT_EQ(queue.fail(tasks[1], "second"), FailOutcome::retried);
    EXPECT_EQ(delayed_count(), 2) << "two failed identical tasks became one retry";
    EXPECT_EQ(queue.stats().delayed, std::optional<std::uint64_t>(2));

    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(queue.promote(), 2u);
    EXPECT_EQ(ready(), (std::vector<std::string>{"same", "same"}));
    const auto again = queue.claim(2);
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[0].payload, "same");
    EXPECT_EQ(again[1].payload, "same");
    EXPECT_EQ(queue.ack(again), std::vector<std::size_t>{});
    EXPECT_EQ(queue.stats().in_flight, 0u);
}

}  // namespace
}  // namespace rowpump::test
