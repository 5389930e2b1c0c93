// RedisQueue against the local Redis (ROWPUMP_REDIS_URL): exactly-once delivery with eight concurrent
// consumers, reliable blocking pops, priority order, delayed tasks promoted on time, retries until dead,
// stale acks refused, and recovery of a silent consumer's processing list. Keys are rp_test:q:<test>:<pid>:*,
// deleted at the end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "integration/redis_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

constexpr int many_tasks = 100'000;
constexpr std::size_t consumers = 8;

std::string payload(int n) { return "{\"n\":" + std::to_string(n) + "}"; }

class RedisQueueTest : public RedisTest {
protected:
    RedisQueueOptions queue_options(std::vector<std::string> priority_lists = {}) const {
        RedisQueueOptions queue;
        queue.queue = queue_;
        queue.priority_lists = std::move(priority_lists);
        queue.retry.backoff_base = 1ms;
        queue.retry.backoff_cap = 4ms;
        return queue;
    }
    RedisQueue open(std::vector<std::string> priority_lists = {}) const {
        return RedisQueue(options_, queue_options(std::move(priority_lists)));
    }

    // RPUSH payloads [first, first + count) to `key`, pipelined as the producer does.
    void push(const std::string& key, int first, int count) {
        std::vector<std::string> arguments;
        for (int i = first; i < first + count;) {
            arguments = {"RPUSH", key};
            for (; i < first + count && arguments.size() < 1002; ++i) arguments.push_back(payload(i));
            std::vector<std::string_view> argv(arguments.begin(), arguments.end());
            connection_->command(argv);
        }
    }
    long long length(const std::string& key) { return connection_->command({"LLEN", key}).integer; }

};

TEST_F(RedisQueueTest, EightConsumersProcessEveryTaskExactlyOnce) {
    push(queue_, 0, many_tasks);
    std::vector<std::vector<std::string>> seen(consumers);
    std::atomic<int> stale{0};
    std::vector<std::thread> threads;
    for (std::size_t c = 0; c < consumers; ++c) {
        threads.emplace_back([&, c] {
            RedisQueue queue = open();
            for (;;) {
                const auto tasks = queue.claim(100);
                if (tasks.empty()) break;
                for (const Task& task : tasks) seen[c].push_back(task.payload);
                stale += static_cast<int>(queue.ack(tasks).size());
            }
            queue.leave();
        });
    }
    for (auto& thread : threads) thread.join();
    const std::vector<std::string> all = merged_sorted(seen);
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a task was delivered twice";
    EXPECT_EQ(all.size(), static_cast<std::size_t>(many_tasks));
    EXPECT_EQ(stale.load(), 0);
    EXPECT_EQ(length(queue_), 0);
    const std::vector<std::string> leftovers = processing_lists(*connection_, queue_);
    EXPECT_TRUE(leftovers.empty()) << "processing lists left behind, e.g. " << leftovers.front();
    EXPECT_EQ(connection_->command({"ZCARD", redis::consumers_set(queue_)}).integer, 0) << "consumers did not sign off";
}

TEST_F(RedisQueueTest, PriorityListsAreReadInOrderThenTheReadyList) {
    push(redis::priority_list(queue_, "low"), 0, 3);
    push(queue_, 100, 2);
    push(redis::priority_list(queue_, "high"), 10, 3);
    RedisQueue queue = open({"high", "low"});
    std::vector<std::string> order;
    for (auto tasks = queue.claim(2); !tasks.empty(); tasks = queue.claim(2)) {
        for (const Task& task : tasks) order.push_back(task.payload);
        queue.ack(tasks);
    }
    EXPECT_EQ(order, (std::vector<std::string>{payload(10), payload(11), payload(12), payload(0), payload(1), payload(2),
                                               payload(100), payload(101)}));
}

TEST_F(RedisQueueTest, ABlockedPopWakesWhenATaskArrivesAndTimesOutOtherwise) {
    RedisQueue queue = open();
    auto started = std::chrono::steady_clock::now();
    EXPECT_TRUE(queue.claim(1, 300ms).empty());
    EXPECT_GE(std::chrono::steady_clock::now() - started, 290ms);

    std::thread producer([&] {
        std::this_thread::sleep_for(200ms);
        redis::Connection(options_).command({"RPUSH", queue_, payload(7)});
    });
    started = std::chrono::steady_clock::now();
    const auto tasks = queue.claim(10, 5s);
    const auto waited = std::chrono::steady_clock::now() - started;
    producer.join();
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_EQ(tasks[0].payload, payload(7));
    EXPECT_LT(waited, 1s) << "the pop did not wake when the task arrived";
    EXPECT_EQ(list_items(*connection_, redis::processing_list(queue_, queue.consumer())), std::vector<std::string>{payload(7)});
    queue.ack(tasks[0]);
    EXPECT_EQ(length(redis::processing_list(queue_, queue.consumer())), 0);
}

TEST_F(RedisQueueTest, ABlockedPopOverPriorityListsSeesEveryList) {
    RedisQueue queue = open({"high", "low"});
    std::thread producer([&] {
        std::this_thread::sleep_for(150ms);
        redis::Connection(options_).command({"RPUSH", redis::priority_list(queue_, "low"), payload(3)});
    });
    const auto started = std::chrono::steady_clock::now();
    const auto tasks = queue.claim(1, 5s);
    const auto waited = std::chrono::steady_clock::now() - started;
    producer.join();
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_LT(waited, 1s);
}

TEST_F(RedisQueueTest, DelayedTasksAreNeverDeliveredEarlyAndWithinASecondOfDue) {
    const std::int64_t now = unix_ms_now();
    std::map<std::string, std::int64_t> due;
    for (int i = 0; i < 20; ++i) {
        due[payload(i)] = now + 100 + 40 * i;
        connection_->command({"ZADD", redis::delayed_set(queue_), std::to_string(due[payload(i)]), payload(i)});
    }
    std::atomic<bool> done{false};
    std::thread promoter([&] {
        RedisQueue queue = open();
        while (!done) {
            queue.promote();
            std::this_thread::sleep_for(200ms);  // the CLI consumer's promotion interval
        }
    });
    RedisQueue queue = open();
    std::map<std::string, std::int64_t> delivered;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (delivered.size() < due.size() && std::chrono::steady_clock::now() < deadline) {
        for (const Task& task : queue.claim(10, 100ms)) {
            delivered[task.payload] = unix_ms_now();
            queue.ack(task);
        }
    }
    done = true;
    promoter.join();
    ASSERT_EQ(delivered.size(), due.size());
    for (const auto& [task, at] : delivered) {
        EXPECT_GE(at, due[task]) << task << " delivered early";
        EXPECT_LE(at, due[task] + 1000) << task << " delivered more than 1 s late";
    }
}

TEST_F(RedisQueueTest, APoisonTaskRetriesWithBackoffThenEndsDead) {
    push(queue_, 0, 1);
    RedisQueueOptions options = queue_options();
    options.retry.max_attempts = 3;
    RedisQueue queue(options_, options);
    std::vector<int> attempts_seen;
    std::vector<FailOutcome> outcomes;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (outcomes.size() < 3 && std::chrono::steady_clock::now() < deadline) {
        queue.promote();
        for (const Task& task : queue.claim(1, 20ms)) {
            attempts_seen.push_back(task.attempts);
            outcomes.push_back(queue.fail(task, "boom"));
        }
    }
    EXPECT_EQ(attempts_seen, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(outcomes, (std::vector<FailOutcome>{FailOutcome::retried, FailOutcome::retried, FailOutcome::dead}));
    EXPECT_EQ(list_items(*connection_, redis::dead_list(queue_)), std::vector<std::string>{payload(0)});
    EXPECT_EQ(connection_->command({"EXISTS", queue_ + ":attempts"}).integer, 0);

    const QueueStats stats = queue.stats();
    EXPECT_EQ(stats.dead, 1u);
    EXPECT_EQ(queue.requeue_dead(), 1u);
    const auto again = queue.claim(1);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].attempts, 0);
}

TEST_F(RedisQueueTest, AFailedTaskWaitsInTheDelayedSetForItsBackoff) {
    push(queue_, 0, 1);
    RedisQueueOptions options = queue_options();
    options.retry.backoff_base = 10s;
    options.retry.backoff_cap = 10s;
    options.retry.jitter = 0;
    RedisQueue queue(options_, options);
    const auto tasks = queue.claim(1);
    ASSERT_EQ(tasks.size(), 1u);
    const std::int64_t before = unix_ms_now();
    EXPECT_EQ(queue.fail(tasks[0], "later"), FailOutcome::retried);
    // The retry's member is the payload behind a writer-0 tag (src/backend/redis/redis_delayed_member.hpp).
    const auto scored = connection_->command({"ZRANGE", redis::delayed_set(queue_), "0", "-1", "WITHSCORES"}).elements;
    ASSERT_EQ(scored.size(), 2u);
    EXPECT_EQ(scored[0].text.substr(0, 20), "rp1:0000000000000000");
    EXPECT_EQ(redis::delayed_payload(scored[0].text), payload(0));
    const auto score = std::stoll(scored[1].text);
    EXPECT_GE(score, before + 10'000 - 5);
    EXPECT_LE(score, unix_ms_now() + 10'000 + 5);
    EXPECT_EQ(queue.promote(), 0u);
}

TEST_F(RedisQueueTest, ASilentConsumersTasksAreRecoveredAndItsAckIsRefused) {
    push(queue_, 0, 5);
    RedisQueue silent = open();
    const auto held = silent.claim(3);
    ASSERT_EQ(held.size(), 3u);
    RedisQueue other = open();
    EXPECT_EQ(other.reap(10s).released, 0u) << "a fresh heartbeat must not be recovered";
    std::this_thread::sleep_for(50ms);
    const ReapResult recovered = other.reap(20ms);
    EXPECT_EQ(recovered.released, 3u);
    // Back at the head of the ready list, in their order.
    EXPECT_EQ(list_items(*connection_, queue_),
              (std::vector<std::string>{payload(0), payload(1), payload(2), payload(3), payload(4)}));
    EXPECT_THROW(silent.ack(held[0]), StaleClaim);
    EXPECT_EQ(silent.ack(held), (std::vector<std::size_t>{0, 1, 2}));

    const auto again = other.claim(1);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].attempts, 1) << "a crash counts as an attempt";
}

TEST_F(RedisQueueTest, AConsumerRestartedUnderItsNameTakesOverWhatItHeld) {
    push(queue_, 0, 4);
    RedisQueueOptions options = queue_options();
    options.consumer = "worker-a";
    {
        RedisQueue first(options_, options);
        ASSERT_EQ(first.claim(2).size(), 2u);
    }  // dies holding two
    RedisQueue second(options_, options);
    const auto tasks = second.claim(3);
    ASSERT_EQ(tasks.size(), 3u);
    EXPECT_EQ(tasks[0].payload, payload(0));
    EXPECT_EQ(tasks[1].payload, payload(1));
    EXPECT_EQ(tasks[2].payload, payload(2));
    EXPECT_TRUE(second.ack(tasks).empty());
}

TEST_F(RedisQueueTest, ReleasedTasksGoBackToTheHeadInOrder) {
    push(queue_, 0, 4);
    RedisQueue queue = open();
    const auto tasks = queue.claim(3);
    ASSERT_EQ(tasks.size(), 3u);
    queue.release({tasks[1], tasks[2]});
    EXPECT_EQ(list_items(*connection_, queue_), (std::vector<std::string>{payload(1), payload(2), payload(3)}));
    const QueueStats stats = queue.stats();
    EXPECT_EQ(stats.ready, 3u);
    EXPECT_EQ(stats.in_flight, 1u);
    ASSERT_EQ(stats.holders.size(), 1u);
    EXPECT_EQ(stats.holders[0].name, queue.consumer());
    EXPECT_TRUE(stats.holders[0].alive);
}

// The ack script takes the head of the processing list in one step when it is the acknowledged tasks in
// order, and removes the others one by one: either way each ack removes one copy of its task, duplicates
// included, and reports the ones not held.
TEST_F(RedisQueueTest, AcksInAnyOrderRemoveOneCopyEachAndReportTheOnesNotHeld) {
    connection_->command({"RPUSH", queue_, "a", "b", "a", "c", "d"});
    RedisQueue queue = open();
    const auto tasks = queue.claim(5);
    ASSERT_EQ(tasks.size(), 5u);
    const std::string processing = redis::processing_list(queue_, queue.consumer());
    // A head that matches in part: the first "a" goes with the head, the second one by itself.
    EXPECT_TRUE(queue.ack({tasks[0], tasks[2]}).empty());
    EXPECT_EQ(list_items(*connection_, processing), (std::vector<std::string>{"b", "c", "d"}));
    // Out of order, with a task this consumer does not hold (the second "a" was acknowledged already).
    EXPECT_EQ(queue.ack({tasks[3], tasks[1], tasks[2]}), (std::vector<std::size_t>{2}));
    EXPECT_EQ(list_items(*connection_, processing), (std::vector<std::string>{"d"}));
    // The head in order: the list empties.
    EXPECT_TRUE(queue.ack(std::vector<Task>{tasks[4]}).empty());
    EXPECT_EQ(length(processing), 0);
}

}  // namespace
}  // namespace rowpump::test
