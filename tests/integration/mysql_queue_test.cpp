// MySqlQueue against the local MariaDB (ROWPUMP_MYSQL_URL): exactly-once delivery with eight concurrent
// consumers in both claim modes, fencing of stale claims, retries with backoff until dead, delayed and
// priority order, purge and stats. Tables are rp_test_q_<name>_<pid>, dropped at the end. Tasks are
// enqueued by the producer (make_sink), so the test also holds the producer and consumer to one contract.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "mysql/connection.hpp"
#include "rowpump/queue.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

// 20k tasks, not 100k: on the shared 2-core dev box (load 10+) eight consumers drain 2-3k tasks/s, and
// 100k per claim mode would take most of a minute each. The race being tested (eight claimers on the same
// head of the queue) is the same at any size; bench/queue_bench.cpp runs the large volumes.
constexpr int many_tasks = 20'000;
constexpr std::size_t consumers = 8;

class MySqlQueueTest : public MySqlTest {
protected:
    std::optional<SourceTable> source_table() const override { return queue_table_of_this_test(); }

    MySqlQueueOptions queue_options(ClaimMode mode = ClaimMode::skip_locked) const {
        MySqlQueueOptions queue;
        queue.table = table_;
        queue.claim_mode = mode;
        queue.retry.backoff_base = 1ms;
        queue.retry.backoff_cap = 4ms;
        return queue;
    }
    MySqlQueue open(ClaimMode mode = ClaimMode::skip_locked) const { return MySqlQueue(options(), queue_options(mode)); }

    // Enqueues through the producer: payloads {"n":<i>} for i in [first, first + count).
    void enqueue(int first, int count, int priority_level = 0, std::int64_t due_ms = 0,
                 std::vector<std::string> levels = {}) {
        SinkSpec spec;
        spec.uri = std::getenv("ROWPUMP_MYSQL_URL");  // set: SetUp fails without it
        spec.queue = table_;
        spec.priority_lists = std::move(levels);
        auto sink = make_sink(spec);
        std::vector<Message> batch;
        for (int i = first; i < first + count; ++i) {
            batch.push_back({"{\"n\":" + std::to_string(i) + "}", priority_level, due_ms});
            if (batch.size() == 5000) {
                sink->write(batch);
                batch.clear();
            }
        }
        sink->write(batch);
    }

    std::uint64_t count_status(const std::string& status) {
        auto rows = tables().rows("SELECT COUNT(*) FROM " + mysql::quote_identifier(table_) + " WHERE status = ?", {status});
        return std::stoull(*rows.at(0).at(0));
    }

};

class ClaimModeTest : public MySqlQueueTest, public ::testing::WithParamInterface<ClaimMode> {};

std::string mode_name(const ::testing::TestParamInfo<ClaimMode>& info) {
    return info.param == ClaimMode::skip_locked ? "skip_locked" : "update_then_select";
}

TEST_P(ClaimModeTest, EightConsumersProcessEveryTaskExactlyOnce) {
    enqueue(0, many_tasks);
    std::vector<std::vector<std::uint64_t>> seen(consumers);
    std::vector<std::thread> threads;
    std::atomic<int> stale{0};
    for (std::size_t c = 0; c < consumers; ++c) {
        threads.emplace_back([&, c] {
            MySqlQueue queue = open(GetParam());
            for (;;) {
                const auto tasks = queue.claim(100);
                if (tasks.empty()) return;
                for (const Task& task : tasks) seen[c].push_back(task.id);
                stale += static_cast<int>(queue.ack(tasks).size());
            }
        });
    }
    for (auto& thread : threads) thread.join();

    const std::vector<std::uint64_t> all = merged_sorted(seen);
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a task was delivered twice";
    EXPECT_EQ(all.size(), static_cast<std::size_t>(many_tasks));
    EXPECT_EQ(stale.load(), 0);
    EXPECT_EQ(count_status("done"), static_cast<std::uint64_t>(many_tasks));
    std::size_t busy = 0;
    for (const auto& ids : seen) busy += ids.empty() ? 0 : 1;
    EXPECT_GT(busy, 1u) << "one consumer did all the work: the others never got a claim";
}

TEST_P(ClaimModeTest, HigherPriorityFirstThenAvailableAtThenId) {
    const std::vector<std::string> levels{"high", "mid", "low"};
    enqueue(0, 5, 2, 0, levels);  // low (priority 1)
    enqueue(5, 5, 0, 0, levels);  // high (priority 3)
    enqueue(10, 5, 1, 0, levels); // mid (priority 2)
    MySqlQueue queue = open(GetParam());
    std::vector<std::string> order;
    while (true) {
        const auto tasks = queue.claim(2);
        if (tasks.empty()) break;
        for (const Task& task : tasks) order.push_back(task.payload);
        queue.ack(tasks);
    }
    std::vector<std::string> expected;
    for (int n : {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 1, 2, 3, 4}) expected.push_back("{\"n\":" + std::to_string(n) + "}");
    EXPECT_EQ(order, expected);
}

// A claim whose level has fewer due rows than it asks for reads past them, to the first claimed row. If it
// locked that entry on the way (the claim index first, then the row), it would wait for an ack holding
// the row, while the ack waits for the entry: a deadlock on every queue that runs dry.
TEST_P(ClaimModeTest, AClaimThatRunsOutOfDueRowsDoesNotWaitForAnAckInFlight) {
    enqueue(0, 20);
    MySqlQueue first = open(GetParam());
    const auto held = first.claim(10);
    ASSERT_EQ(held.size(), 10u);
    // An ack in flight: its transaction holds the oldest claimed row, the first entry past the ready ones.
    mysql::Connection acker(options());
    acker.execute_text("START TRANSACTION");
    acker.execute("UPDATE " + mysql::quote_identifier(table_) + " SET updated_at = NOW(6) WHERE id = ?", {held.front().id});

    MySqlQueue second = open(GetParam());
    auto claim = std::async(std::launch::async, [&] { return second.claim(100); });
    const bool finished = claim.wait_for(10s) == std::future_status::ready;
    acker.execute_text("ROLLBACK");
    EXPECT_TRUE(finished) << "the claim waited for the lock of a row it does not take";
    const auto rest = claim.get();
    ASSERT_EQ(rest.size(), 10u);
    EXPECT_EQ(rest.front().payload, "{\"n\":10}");
    EXPECT_EQ(rest.back().payload, "{\"n\":19}");
}

// A consumer reads on after the last row it claimed, so a row that comes back behind that point (released
// here; reaped or committed late in production) waits until the consumer asks for the levels again.
TEST_P(ClaimModeTest, ARowBehindTheClaimCursorIsClaimedOnceTheLevelsAreReadAgain) {
    enqueue(0, 300);
    MySqlQueue queue = open(GetParam());
    const auto first = queue.claim(100);
    ASSERT_EQ(first.size(), 100u);
    queue.release({first.front()});
    std::this_thread::sleep_for(250ms);  // past the 200 ms the levels (and the cursors) are cached
    const auto next = queue.claim(100);
    ASSERT_EQ(next.size(), 100u);
    EXPECT_EQ(next.front().id, first.front().id) << "the released task, the oldest ready one, should come first";
    EXPECT_EQ(next.front().payload, "{\"n\":0}");

    std::set<std::uint64_t> seen;
    for (const auto* batch : {&first, &next}) {
        for (const Task& task : *batch) seen.insert(task.id);
    }
    for (auto tasks = queue.claim(100); !tasks.empty(); tasks = queue.claim(100)) {
        for (const Task& task : tasks) EXPECT_TRUE(seen.insert(task.id).second) << "task " << task.id << " claimed twice";
    }
    EXPECT_EQ(seen.size(), 300u);
}

// Consumers in separate processes do not share a claim cursor: their reads meet on the same rows, and
// a consumer that keeps losing those races reads further ahead (MySqlQueue::Impl::spread). Nothing may
// be claimed twice or left behind.
TEST_P(ClaimModeTest, ConsumersInSeparateProcessesProcessEveryTaskExactlyOnce) {
    constexpr int tasks = 6000;
    constexpr int processes = 4;
    enqueue(0, tasks);
    // The ids, in order: a bulk INSERT reserves AUTO_INCREMENT values in growing blocks, as INSERT ...
    // SELECT does, so they need not be consecutive.
    std::vector<std::uint64_t> ids;
    for (const auto& row : tables().rows("SELECT id FROM " + mysql::quote_identifier(table_) + " ORDER BY id"))
        ids.push_back(std::stoull(*row.at(0)));
    ASSERT_EQ(ids.size(), static_cast<std::size_t>(tasks));
    // The task's place in `ids`; ids.size() for an id that was never enqueued.
    const auto index_of = [&ids](std::uint64_t id) {
        const auto found = std::lower_bound(ids.begin(), ids.end(), id);
        return static_cast<std::size_t>((found != ids.end() && *found == id ? found : ids.end()) - ids.begin());
    };
    // Claims per task, in memory the consumer processes share with this one.
    const std::size_t bytes = sizeof(std::atomic<int>) * tasks;
    void* shared = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(shared, MAP_FAILED);
    auto* claims = new (shared) std::atomic<int>[tasks]();

    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int code = 0;
            try {
                MySqlQueue queue = open(GetParam());
                for (auto batch = queue.claim(50); !batch.empty(); batch = queue.claim(50)) {
                    for (const Task& task : batch) {
                        const std::size_t index = index_of(task.id);
                        if (index == ids.size()) code = 5;
                        else claims[index].fetch_add(1);
                    }
                    if (!queue.ack(batch).empty()) code = 3;
                }
            } catch (const std::exception&) {
                code = 4;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a consumer process failed: status " << status;
    }
    int twice = 0;
    int never = 0;
    for (int i = 0; i < tasks; ++i) {
        twice += claims[i].load() > 1 ? 1 : 0;
        never += claims[i].load() == 0 ? 1 : 0;
    }
    ::munmap(shared, bytes);
    EXPECT_EQ(twice, 0) << "tasks claimed more than once";
    EXPECT_EQ(never, 0) << "tasks never claimed";
    EXPECT_EQ(count_status("done"), static_cast<std::uint64_t>(tasks));
}

INSTANTIATE_TEST_SUITE_P(Modes, ClaimModeTest, ::testing::Values(ClaimMode::skip_locked, ClaimMode::update_then_select),
                         mode_name);

TEST_F(MySqlQueueTest, AStaleConsumersAckAndFailAreRefused) {
    enqueue(0, 1);
    MySqlQueue slow = open();
    MySqlQueue other = open();
    const auto held = slow.claim(1);
    ASSERT_EQ(held.size(), 1u);
    std::this_thread::sleep_for(20ms);
    const ReapResult reaped = other.reap(10ms);  // the claim is older than the timeout: taken back
    EXPECT_EQ(reaped.released, 1u);
    const auto taken = other.claim(1);
    ASSERT_EQ(taken.size(), 1u);
    EXPECT_EQ(taken[0].id, held[0].id);
    EXPECT_GT(taken[0].version, held[0].version);

    EXPECT_THROW(slow.ack(held[0]), StaleClaim);
    EXPECT_THROW(slow.fail(held[0], "too late"), StaleClaim);
    EXPECT_NO_THROW(other.ack(taken[0]));
    EXPECT_EQ(count_status("done"), 1u);
    auto crashes = tables().rows("SELECT crashes FROM " + mysql::quote_identifier(table_));
    EXPECT_EQ(*crashes.at(0).at(0), "1");
}

TEST_F(MySqlQueueTest, BatchAckReportsOnlyTheStaleTasks) {
    enqueue(0, 3);
    MySqlQueue queue = open();
    const auto tasks = queue.claim(3);
    ASSERT_EQ(tasks.size(), 3u);
    tables().execute(table_, "UPDATE {t} SET version = version + 1 WHERE id = " + std::to_string(tasks[1].id));
    EXPECT_EQ(queue.ack(tasks), std::vector<std::size_t>{1});
    EXPECT_EQ(queue.ack(std::vector<Task>{tasks[0]}), std::vector<std::size_t>{}) << "a repeated ack is harmless";
    EXPECT_EQ(count_status("done"), 2u);
}

TEST_F(MySqlQueueTest, APoisonTaskEndsDeadAfterMaxAttemptsWithItsLastError) {
    enqueue(0, 1);
    MySqlQueueOptions options = queue_options();
    options.retry.max_attempts = 3;
    MySqlQueue queue(this->options(), options);
    std::vector<FailOutcome> outcomes;
    std::vector<int> attempts_seen;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto tasks = queue.claim(1);
        if (tasks.empty()) {
            if (count_status("dead") == 1) break;
            std::this_thread::sleep_for(2ms);
            continue;
        }
        attempts_seen.push_back(tasks[0].attempts);
        outcomes.push_back(queue.fail(tasks[0], "boom " + std::to_string(tasks[0].attempts)));
    }
    EXPECT_EQ(attempts_seen, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(outcomes, (std::vector<FailOutcome>{FailOutcome::retried, FailOutcome::retried, FailOutcome::dead}));
    auto row = tables().rows("SELECT status, attempts, last_error FROM " + mysql::quote_identifier(table_));
    EXPECT_EQ(row.at(0), (Row{"dead", "3", "boom 2"}));

    EXPECT_EQ(queue.requeue_dead(), 1u);
    const auto again = queue.claim(1);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].attempts, 0);
}

TEST_F(MySqlQueueTest, AnErrorTextThatIsNotUtf8IsStillStored) {
    enqueue(0, 1);
    MySqlQueue queue = open();
    const auto tasks = queue.claim(1);
    ASSERT_EQ(tasks.size(), 1u);
    // A command's stderr can hold any bytes; a strict utf8mb4 column refuses invalid ones, and a refused
    // fail() would leave the task claimed until the reaper.
    EXPECT_EQ(queue.fail(tasks[0], std::string("bad \xff\xfe bytes, \xe2\x82\xac ok, cut \xe2\x82")), FailOutcome::retried);
    auto row = tables().rows("SELECT last_error, status FROM " + mysql::quote_identifier(table_));
    EXPECT_EQ(row.at(0), (Row{"bad ?? bytes, \xe2\x82\xac ok, cut ??", "ready"}));
}

TEST_F(MySqlQueueTest, AFailedTaskWaitsForItsBackoff) {
    enqueue(0, 1);
    MySqlQueueOptions options = queue_options();
    options.retry.backoff_base = 400ms;
    options.retry.backoff_cap = 400ms;
    options.retry.jitter = 0;
    MySqlQueue queue(this->options(), options);
    const auto tasks = queue.claim(1);
    ASSERT_EQ(tasks.size(), 1u);
    const auto failed_at = std::chrono::steady_clock::now();
    EXPECT_EQ(queue.fail(tasks[0], "not yet"), FailOutcome::retried);
    std::vector<Task> again;
    while (again.empty() && std::chrono::steady_clock::now() - failed_at < 5s) {
        again = queue.claim(1);
        if (again.empty()) std::this_thread::sleep_for(5ms);
    }
    const auto waited = std::chrono::steady_clock::now() - failed_at;
    ASSERT_EQ(again.size(), 1u);
    EXPECT_GE(waited, 390ms);
    EXPECT_LT(waited, 1400ms);
    EXPECT_EQ(again[0].attempts, 1);
}

TEST_F(MySqlQueueTest, DelayedTasksAreNeverClaimedEarlyAndSoonAfterTheyAreDue) {
    const std::int64_t now = unix_ms_now();
    for (int i = 0; i < 5; ++i) enqueue(i, 1, 0, now + 200 + 150 * i);
    MySqlQueue queue = open();
    std::size_t claimed = 0;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (claimed < 5 && std::chrono::steady_clock::now() < deadline) {
        const auto tasks = queue.claim(5);
        claimed += tasks.size();
        queue.ack(tasks);
        if (tasks.empty()) std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(claimed, 5u);
    // Both times are the server's: no clock skew between the test and MariaDB enters the check.
    auto rows = tables().rows("SELECT TIMESTAMPDIFF(MICROSECOND, available_at, claimed_at) FROM " +
                              mysql::quote_identifier(table_) + " ORDER BY id");
    ASSERT_EQ(rows.size(), 5u);
    for (const Row& row : rows) {
        const auto late_us = std::stoll(*row.at(0));
        EXPECT_GE(late_us, 0) << "claimed before it was due";
        EXPECT_LT(late_us, 1'000'000) << "claimed more than 1 s after it was due";
    }
}

TEST_F(MySqlQueueTest, ReleasedTasksComeBackWithoutAnAttempt) {
    enqueue(0, 4);
    MySqlQueue queue = open();
    const auto tasks = queue.claim(4);
    ASSERT_EQ(tasks.size(), 4u);
    queue.release({tasks[2], tasks[3]});
    EXPECT_EQ(count_status("claimed"), 2u);
    const auto again = queue.claim(4);
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[0].id, tasks[2].id);
    EXPECT_EQ(again[0].attempts, 0);
}

TEST_F(MySqlQueueTest, StatsPurgeAndTouch) {
    enqueue(0, 2500);
    MySqlQueue queue = open();
    const auto tasks = queue.claim(2000);
    ASSERT_EQ(tasks.size(), 2000u);
    QueueStats stats = queue.stats();
    EXPECT_EQ(stats.ready, 500u);
    EXPECT_EQ(stats.in_flight, 2000u);
    EXPECT_EQ(stats.done, 0u);
    ASSERT_EQ(stats.holders.size(), 1u);
    EXPECT_EQ(stats.holders[0].name, std::to_string(queue.owner_id()));
    EXPECT_TRUE(stats.holders[0].alive);
    ASSERT_TRUE(stats.oldest_ready_seconds);

    // Claimed 1.2 s ago, older than the 1 s timeout, but renewed: the reaper leaves them alone.
    std::this_thread::sleep_for(1200ms);
    queue.heartbeat();
    EXPECT_EQ(queue.reap(1s).released, 0u);

    queue.ack(tasks);
    EXPECT_EQ(queue.purge(3600s), 0u) << "done just now: too young to purge";
    EXPECT_EQ(queue.purge(0s, 300), 2000u);
    stats = queue.stats(100);
    EXPECT_EQ(stats.ready, 100u);
    EXPECT_TRUE(stats.capped);
}

TEST_F(MySqlQueueTest, ATableOfTheWrongShapeIsRefused) {
    const std::string other = tables().create("q_wrong", "(id BIGINT PRIMARY KEY, payload TEXT) ENGINE=InnoDB");
    MySqlQueueOptions options = queue_options();
    options.table = other;
    try {
        MySqlQueue queue(this->options(), options);
        ADD_FAILURE() << "no UsageError";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("wrong shape"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace rowpump::test
