// A consumer worker (src/consume) over a queue that only records what it is asked: each handler result
// becomes an ack or a fail with the right policy (the queue's; the retry's delay with no jitter; dead at
// once), an exception is a fail with its text, a stop hands the rest of the batch back, a ConsumerHalt
// leaves the task in hand claimed, hands the rest back and is thrown, and a handler can renew its claim.
// A drain that waits for held tasks names only those held outside its own run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "consume/consumer_run.hpp"
#include "rowpump/log.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;

class RecordingConsumer final : public QueueConsumer {
public:
    struct Failure {
        std::string payload;
        std::string error;
        RetryPolicy policy;
    };

    explicit RecordingConsumer(const std::vector<std::string>& payloads) {
        std::vector<Task> batch;
        for (const std::string& payload : payloads) batch.push_back(Task{0, payload, 0, 0, 1});
        batches_.push_back(std::move(batch));
    }

    std::vector<Task> claim(std::size_t, std::chrono::milliseconds) override {
        if (batches_.empty()) return {};
        std::vector<Task> batch = std::move(batches_.front());
        batches_.pop_front();
        return batch;
    }
    void ack(const Task& task) override { acked.push_back(task.payload); }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override {
        ++batch_acks;
        std::vector<std::size_t> stale;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            if (tasks[i].payload == "stale") stale.push_back(i);
            else acked.push_back(tasks[i].payload);
        }
        return stale;
    }
    FailOutcome fail(const Task& task, const std::string& error) override { return fail(task, error, RetryPolicy{}); }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        failures.push_back({task.payload, error, policy});
        return task.attempts + 1 >= policy.max_attempts ? FailOutcome::dead : FailOutcome::retried;
    }
    void release(const std::vector<Task>& tasks) override {
        for (const Task& task : tasks) released.push_back(task.payload);
    }
    Backlog backlog() override {  // the next of `backlogs`, then nothing left: a drain ends
        if (backlogs.empty()) return {};
        const Backlog next = backlogs.front();
        backlogs.pop_front();
        return next;
    }
    ReapResult reap() override { return {}; }
    void heartbeat() override { ++heartbeats; }
    void leave() override {}
    std::string describe(const Task& task) const override { return "task " + task.payload; }
    std::string name() const override { return "recording"; }

    std::deque<Backlog> backlogs;
    std::vector<std::string> acked;
    std::vector<Failure> failures;
    std::vector<std::string> released;
    int heartbeats = 0;
    int batch_acks = 0;

private:
    std::deque<std::vector<Task>> batches_;
};

ConsumerOptions draining() {
    ConsumerOptions options;
    options.source = QueueSource::redis(RedisOptions{}, "unit");  // never connected: the worker sees only its consumer
    options.until_empty = true;
    options.batch = 8;
    return options;
}

RetryPolicy queue_policy() {
    RetryPolicy policy;
    policy.max_attempts = 4;
    policy.backoff_base = 2s;
    policy.backoff_cap = 60s;
    policy.jitter = 0.5;
    return policy;
}

TEST(ConsumerWorkerTest, EachResultBecomesAnAckOrAFailWithItsPolicy) {
    RecordingConsumer consumer({"ok", "retry", "fail", "dead", "throw"});
    ConsumerOptions options = draining();
    std::vector<TaskOutcome> outcomes;
    options.on_outcome = [&outcomes](const TaskContext&, TaskOutcome outcome) { outcomes.push_back(outcome); };
    const TaskHandler handler = [](const TaskContext& task) {
        if (task.payload == "retry") return TaskResult::retry(250ms, "later");
        if (task.payload == "fail") return TaskResult::fail("it failed");
        if (task.payload == "dead") return TaskResult::dead("poison");
        if (task.payload == "throw") throw std::runtime_error("it threw");
        return TaskResult::ok();
    };
    consume::ConsumerRun run(options, handler, "q", queue_policy());
    consume::work(consumer, run);

    EXPECT_EQ(consumer.acked, std::vector<std::string>{"ok"});
    ASSERT_EQ(consumer.failures.size(), 4u);
    const auto& retry = consumer.failures[0];
    EXPECT_EQ(retry.error, "later");
    EXPECT_EQ(retry.policy.backoff_base, 250ms);
    EXPECT_EQ(retry.policy.backoff_cap, 250ms);
    EXPECT_DOUBLE_EQ(retry.policy.jitter, 0.0);
    EXPECT_EQ(retry.policy.max_attempts, 4);
    const auto& fail = consumer.failures[1];
    EXPECT_EQ(fail.error, "it failed");
    EXPECT_EQ(fail.policy.backoff_base, 2s);
    EXPECT_EQ(fail.policy.backoff_cap, 60s);
    EXPECT_EQ(fail.policy.max_attempts, 4);
    const auto& dead = consumer.failures[2];
    EXPECT_EQ(dead.error, "poison");
    EXPECT_EQ(dead.policy.max_attempts, 1);
    const auto& thrown = consumer.failures[3];
    EXPECT_EQ(thrown.error, "it threw");
    EXPECT_EQ(thrown.policy.backoff_base, 2s);

    const ConsumerReport report = run.report();
    EXPECT_EQ(report.done, 1u);
    EXPECT_EQ(report.failed, 4u);
    EXPECT_EQ(report.retried, 3u);
    EXPECT_EQ(report.dead, 1u);
    EXPECT_EQ(report.handed_back, 0u);
    EXPECT_TRUE(report.drained);
    EXPECT_EQ(outcomes, (std::vector<TaskOutcome>{TaskOutcome::done, TaskOutcome::retried, TaskOutcome::retried,
                                                  TaskOutcome::dead, TaskOutcome::retried}));
}

// The info lines of a drain whose queue says `held` tasks are held while this run's other workers hold
// `held_here` of them.
std::vector<std::string> wait_lines(std::uint64_t held, std::size_t held_here) {
    RecordingConsumer consumer(std::vector<std::string>{});
    consumer.backlogs.push_back(Backlog{.held = held});
    const TaskHandler handler = [](const TaskContext&) { return TaskResult::ok(); };
    const ConsumerOptions options = draining();
    consume::ConsumerRun run(options, handler, "q", queue_policy());
    run.held_here = held_here;
    std::vector<std::string> lines;
    set_log_handler([&lines](LogLevel level, std::string_view message) {
        if (level == LogLevel::info) lines.emplace_back(message);
    });
    consume::work(consumer, run);
    set_log_handler({});
    EXPECT_TRUE(run.report().drained);
    return lines;
}

TEST(ConsumerWorkerTest, ADrainNamesOnlyTheTasksHeldOutsideItsOwnRun) {
    const std::vector<std::string> others = wait_lines(5, 2);
    ASSERT_EQ(others.size(), 1u);
    EXPECT_NE(others[0].find("waiting for 3 task(s) other consumers hold"), std::string::npos) << others[0];
    EXPECT_TRUE(wait_lines(2, 2).empty()) << "its own workers' tasks are not another consumer's";
}

TEST(ConsumerWorkerTest, AStopHandsTheRestOfTheBatchBackUncounted) {
    RecordingConsumer consumer({"a", "b", "c", "d"});
    ConsumerOptions options = draining();
    std::atomic<bool> stop{false};
    options.stop = &stop;
    const TaskHandler handler = [&stop](const TaskContext& task) {
        if (task.payload == "b") stop = true;
        return TaskResult::ok();
    };
    consume::ConsumerRun run(options, handler, "q", queue_policy());
    consume::work(consumer, run);
    EXPECT_EQ(consumer.acked, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(consumer.released, (std::vector<std::string>{"c", "d"}));
    EXPECT_TRUE(consumer.failures.empty());
    const ConsumerReport report = run.report();
    EXPECT_EQ(report.handed_back, 2u);
    EXPECT_TRUE(report.stopped);
    EXPECT_FALSE(report.drained);
}

TEST(ConsumerWorkerTest, AHaltLeavesTheTaskInHandClaimedHandsTheRestBackAndIsThrown) {
    RecordingConsumer consumer({"a", "b", "c", "d"});
    const ConsumerOptions options = draining();
    const TaskHandler handler = [](const TaskContext& task) {
        if (task.payload == "b") throw ConsumerHalt("the handler cannot work");
        return TaskResult::ok();
    };
    consume::ConsumerRun run(options, handler, "q", queue_policy());
    EXPECT_THROW(consume::work(consumer, run), ConsumerHalt);
    EXPECT_EQ(consumer.acked, std::vector<std::string>{"a"});
    EXPECT_EQ(consumer.released, (std::vector<std::string>{"c", "d"}));
    EXPECT_TRUE(consumer.failures.empty());
}

TEST(ConsumerWorkerTest, TheHandlerSeesItsTaskAndRenewsItsClaim) {
    RecordingConsumer consumer({"payload"});
    const ConsumerOptions options = draining();
    std::string seen_queue, seen_payload;
    int seen_attempt = 0;
    const TaskHandler handler = [&](const TaskContext& task) {
        seen_queue = task.queue;
        seen_payload = task.payload;
        seen_attempt = task.attempt;
        task.heartbeat();
        task.heartbeat();
        return TaskResult::ok();
    };
    consume::ConsumerRun run(options, handler, "jobs", queue_policy());
    consume::work(consumer, run);
    EXPECT_EQ(seen_queue, "jobs");
    EXPECT_EQ(seen_payload, "payload");
    EXPECT_EQ(seen_attempt, 1);
    EXPECT_EQ(consumer.heartbeats, 3) << "one before the handler, two by it";
}

}  // namespace
}  // namespace rowpump

namespace rowpump {
namespace {

TEST(ConsumerWorkerTest, ABatchHandlerGetsTheWholeClaimAndItsAcksGoInOneCall) {
    RecordingConsumer consumer({"ok1", "fail", "ok2", "stale", "dead"});
    ConsumerOptions options = draining();
    std::vector<TaskOutcome> outcomes;
    options.on_outcome = [&outcomes](const TaskContext&, TaskOutcome outcome) { outcomes.push_back(outcome); };
    std::vector<std::size_t> calls;
    const BatchHandler handler = [&calls](const std::vector<TaskContext>& tasks) {
        calls.push_back(tasks.size());
        std::vector<TaskResult> results;
        for (const TaskContext& task : tasks)
            results.push_back(task.payload == "fail"   ? TaskResult::fail("it failed")
                              : task.payload == "dead" ? TaskResult::dead("poison")
                                                       : TaskResult::ok());
        return results;
    };
    consume::ConsumerRun run(options, handler, "q", queue_policy());
    consume::work(consumer, run);

    EXPECT_EQ(calls, std::vector<std::size_t>{5});
    EXPECT_EQ(consumer.batch_acks, 1);
    EXPECT_EQ(consumer.acked, (std::vector<std::string>{"ok1", "ok2"}));
    ASSERT_EQ(consumer.failures.size(), 2u);
    EXPECT_EQ(consumer.failures[0].error, "it failed");
    EXPECT_EQ(consumer.failures[1].policy.max_attempts, 1);
    EXPECT_EQ(outcomes, (std::vector<TaskOutcome>{TaskOutcome::done, TaskOutcome::retried, TaskOutcome::done,
                                                  TaskOutcome::stale, TaskOutcome::dead}));
    const ConsumerReport report = run.report();
    EXPECT_EQ(report.done, 2u);
    EXPECT_EQ(report.stale, 1u);
    EXPECT_EQ(report.dead, 1u);
}

TEST(ConsumerWorkerTest, ABatchHandlerThatThrowsOrMiscountsFailsTheWholeBatch) {
    for (const bool throws : {true, false}) {
        RecordingConsumer consumer({"a", "b", "c"});
        const ConsumerOptions options = draining();
        const BatchHandler handler = [throws](const std::vector<TaskContext>&) -> std::vector<TaskResult> {
            if (throws) throw std::runtime_error("it threw");
            return {TaskResult::ok()};
        };
        consume::ConsumerRun run(options, handler, "q", queue_policy());
        consume::work(consumer, run);
        EXPECT_TRUE(consumer.acked.empty());
        ASSERT_EQ(consumer.failures.size(), 3u);
        EXPECT_EQ(consumer.failures[2].error, throws ? "it threw" : "its batch handler gave 1 results for 3 tasks");
    }
}

}  // namespace
}  // namespace rowpump
