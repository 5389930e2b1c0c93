// run_consumers (rowpump/consumer.hpp), the consumers a program embeds, on the MySQL queue table and on
// Redis: each handler result does what it says (ok acknowledges; retry runs the task again after its
// delay; an exception fails it with the queue's backoff; dead buries it at once, with its reason in
// last_error), the drain waits for the retries and reports the counts; a stop hands the rest of a batch
// back; a ConsumerHalt ends the run and is thrown after the report; a queue named by URL is consumed by
// the backend of its scheme, and a source without a queue is refused. Tables rp_test_q_*, keys rp_test:*.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "integration/mysql_redis_fixture.hpp"
#include "mysql/connection.hpp"
#include "rowpump/consumer.hpp"
#include "rowpump/enqueue.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int task_count = 12;

int task_number(std::string_view payload) { return std::stoi(std::string(payload.substr(payload.find(':') + 1))); }

// What the handlers below saw: the attempts of each task, and what the callbacks were told.
struct Seen {
    std::mutex mutex;
    std::map<int, std::vector<int>> attempts;  // task number -> the attempt of each delivery
    std::map<TaskOutcome, int> outcomes;
    int finished = 0;
    ConsumerReport finished_report;
};

// Task 0 asks for a retry in 100 ms on its first delivery, task 1 is dead at once, task 2 throws on its
// first delivery; every other delivery succeeds.
TaskResult mixed_results(const TaskContext& task, Seen& seen) {
    const int n = task_number(task.payload);
    {
        const std::lock_guard lock(seen.mutex);
        seen.attempts[n].push_back(task.attempt);
    }
    if (n == 0 && task.attempt == 1) return TaskResult::retry(100ms);
    if (n == 1) return TaskResult::dead("poison task");
    if (n == 2 && task.attempt == 1) throw std::runtime_error("the handler threw");
    return TaskResult::ok();
}

class RunConsumersTest : public MySqlRedisTest {
protected:
    std::optional<SourceTable> source_table() const override { return queue_table_of_this_test(); }

    void enqueue(const SinkSpec& sink, int first = 0, int count = task_count) {
        BulkEnqueuer enqueuer(sink);
        for (int i = first; i < first + count; ++i) enqueuer.push("{\"n\":" + std::to_string(i) + "}");
        enqueuer.flush();
    }
    ConsumerOptions mysql_consumers() {
        enqueue(SinkSpec::mysql(options(), table_));
        ConsumerOptions consumers;
        consumers.source = QueueSource::mysql(options(), table_);
        consumers.retry.backoff_base = 50ms;
        consumers.retry.backoff_cap = 100ms;
        return consumers;
    }
    ConsumerOptions redis_consumers() {
        const RedisOptions redis = RedisOptions::from_url(redis_url_);
        enqueue(SinkSpec::redis(redis, queue_));
        ConsumerOptions consumers;
        consumers.source = QueueSource::redis(redis, queue_);
        consumers.retry.backoff_base = 50ms;
        consumers.retry.backoff_cap = 100ms;
        return consumers;
    }

    // Drains the queue on 3 workers with mixed_results, and checks the report and the callbacks.
    void drain_with_mixed_results(ConsumerOptions consumers) {
        Seen seen;
        consumers.workers = 3;
        consumers.batch = 2;
        consumers.until_empty = true;
        consumers.on_outcome = [&seen](const TaskContext&, TaskOutcome outcome) {
            const std::lock_guard lock(seen.mutex);
            ++seen.outcomes[outcome];
        };
        consumers.on_finished = [&seen](const ConsumerReport& report) {
            ++seen.finished;
            seen.finished_report = report;
        };
        const ConsumerReport report =
            run_consumers(consumers, [&seen](const TaskContext& task) { return mixed_results(task, seen); });

        EXPECT_TRUE(report.drained);
        EXPECT_FALSE(report.stopped);
        EXPECT_EQ(report.done, static_cast<std::uint64_t>(task_count - 1));
        EXPECT_EQ(report.failed, 3u);
        EXPECT_EQ(report.retried, 2u);
        EXPECT_EQ(report.dead, 1u);
        EXPECT_EQ(report.stale, 0u);
        EXPECT_EQ(report.handed_back, 0u);
        EXPECT_EQ(seen.finished, 1);
        EXPECT_EQ(seen.finished_report.done, report.done);
        EXPECT_EQ(seen.outcomes[TaskOutcome::done], task_count - 1);
        EXPECT_EQ(seen.outcomes[TaskOutcome::retried], 2);
        EXPECT_EQ(seen.outcomes[TaskOutcome::dead], 1);
        for (int n = 0; n < task_count; ++n) {
            const std::vector<int> expected = n == 0 || n == 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
            EXPECT_EQ(seen.attempts[n], expected) << "task " << n;
        }
    }
};

TEST_F(RunConsumersTest, EachResultOfTheHandlerDoesWhatItSaysOnTheMySqlQueueTable) {
    drain_with_mixed_results(mysql_consumers());
    const auto rows = tables().rows("SELECT status, COUNT(*) FROM " + mysql::quote_identifier(table_) +
                                    " GROUP BY status ORDER BY status");
    EXPECT_EQ(rows, (std::vector<Row>{{"done", std::to_string(task_count - 1)}, {"dead", "1"}}));
    const auto dead = tables().rows("SELECT payload, attempts, last_error FROM " + mysql::quote_identifier(table_) +
                                    " WHERE status = 'dead'");
    EXPECT_EQ(dead, (std::vector<Row>{{"{\"n\":1}", "1", "poison task"}}));
    const auto failed = tables().rows("SELECT last_error FROM " + mysql::quote_identifier(table_) +
                                      " WHERE payload = '{\"n\":2}'");
    EXPECT_EQ(failed, (std::vector<Row>{{"the handler threw"}}));
}

TEST_F(RunConsumersTest, EachResultOfTheHandlerDoesWhatItSaysOnRedis) {
    drain_with_mixed_results(redis_consumers());
    EXPECT_EQ(list_items(*redis_, queue_), std::vector<std::string>{});
    EXPECT_EQ(list_items(*redis_, queue_ + ":dead"), std::vector<std::string>{"{\"n\":1}"});
    EXPECT_EQ(redis_->command({"ZCARD", queue_ + ":delayed"}).integer, 0);
}

TEST_F(RunConsumersTest, AStopHandsTheRestOfTheBatchBack) {
    ConsumerOptions consumers = redis_consumers();
    std::atomic<bool> stop{false};
    consumers.stop = &stop;
    consumers.batch = 5;
    int handled = 0;
    const ConsumerReport report = run_consumers(consumers, [&](const TaskContext&) {
        if (++handled == 3) stop = true;
        return TaskResult::ok();
    });
    EXPECT_TRUE(report.stopped);
    EXPECT_FALSE(report.drained);
    EXPECT_EQ(report.done, 3u);
    EXPECT_EQ(report.handed_back, 2u);
    EXPECT_EQ(list_items(*redis_, queue_).size(), static_cast<std::size_t>(task_count - 3));
}

TEST_F(RunConsumersTest, AConsumerHaltEndsTheRunAfterTheReport) {
    ConsumerOptions consumers = redis_consumers();
    consumers.workers = 2;
    int finished = 0;
    consumers.on_finished = [&finished](const ConsumerReport&) { ++finished; };
    EXPECT_THROW(run_consumers(consumers, [](const TaskContext&) -> TaskResult { throw ConsumerHalt("no handler"); }),
                 ConsumerHalt);
    EXPECT_EQ(finished, 1);
}

TEST_F(RunConsumersTest, AQueueNamedByItsUrlIsConsumedByTheBackendOfItsScheme) {
    ConsumerOptions consumers = redis_consumers();
    consumers.source = QueueSource::from_url(redis_url_, queue_);
    consumers.until_empty = true;
    std::atomic<int> handled{0};
    const ConsumerReport report = run_consumers(consumers, [&](const TaskContext&) {
        ++handled;
        return TaskResult::ok();
    });
    EXPECT_TRUE(report.drained);
    EXPECT_EQ(report.done, static_cast<std::uint64_t>(task_count));
    EXPECT_EQ(handled.load(), task_count);
    EXPECT_EQ(list_items(*redis_, queue_), std::vector<std::string>{});
}

TEST_F(RunConsumersTest, OptionsWithoutAQueueAreRefusedBeforeAnythingIsClaimed) {
    const auto ok = [](const TaskContext&) { return TaskResult::ok(); };
    EXPECT_THROW(run_consumers(ConsumerOptions{}, ok), UsageError);
    ConsumerOptions elsewhere = redis_consumers();
    for (const char* url : {"kafka://broker/0", "stdout", "file:/dev/null"}) {
        elsewhere.source = QueueSource::from_url(url, queue_);
        EXPECT_THROW(run_consumers(elsewhere, ok), UsageError) << url;
    }
    ConsumerOptions no_claim_timeout = mysql_consumers();
    no_claim_timeout.claim_timeout = std::chrono::milliseconds(0);
    EXPECT_THROW(run_consumers(no_claim_timeout, ok), UsageError);
    EXPECT_EQ(list_items(*redis_, queue_).size(), static_cast<std::size_t>(task_count));
}

}  // namespace
}  // namespace rowpump::test
