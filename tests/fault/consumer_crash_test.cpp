// Consumers that die. Library level: MySQL consumers whose connections are KILLed while they hold claims
// (the reaper gives the tasks back at once: every task is processed at least once, none is lost; a task
// whose consumers keep dying ends dead), and Redis consumers that go silent (their processing lists come
// back once the heartbeat expires). CLI level: `rowpump queue consume` drains cleanly on SIGTERM (running
// tasks finish, exit 0, nothing left claimed) and, killed with SIGKILL, loses nothing: a second run
// recovers what the first held. Tables rp_test_q_*, keys rp_test:q:*; all removed at the end.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "fault/consumer_commands.hpp"
#include "integration/redis_fixture.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "rowpump/queue.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string payload(int n) { return "{\"n\":" + std::to_string(n) + "}"; }

// --------------------------------------------------------------------------------------- the CLI as a process

// What a `rowpump queue consume` process said, read in full: its stderr (where rowpump logs), then its stdout.
std::string log_of(const CliProcess& consumer) { return consumer.err() + consumer.out(); }

// Runs a test thread's body; an exception fails the test and stops the other threads instead of
// terminating the process.
template <class Body>
void guarded(std::atomic<bool>& stop, Body&& body) {
    try {
        body();
    } catch (const std::exception& error) {
        ADD_FAILURE() << "test thread failed: " << error.what();
        stop = true;
    }
}

// Every payload in [0, count) appears at least once; duplicates are fine (at-least-once).
std::string missing_payloads(const std::vector<std::string>& seen, int count) {
    const std::set<std::string> distinct(seen.begin(), seen.end());
    std::string missing;
    int shown = 0;
    for (int i = 0; i < count; ++i) {
        if (distinct.count(payload(i))) continue;
        if (shown++ < 5) missing += payload(i) + " ";
    }
    return shown == 0 ? "" : std::to_string(shown) + " missing, e.g. " + missing;
}

// `rowpump queue` exists only once src/cli/main.cpp wires it: say so instead of failing obscurely.
bool has_queue_command(const std::string& log) { return log.find("was not expected: queue") == std::string::npos; }
constexpr const char* wire_main_hint = "the CLI has no `queue` command: wire setup_queue/run_queue into src/cli/main.cpp\n";

// Runs the consumer `args` until it has run three tasks of `outbox`, then SIGKILLs it.
void kill_after_three_tasks(const std::vector<std::string>& args, Outbox& outbox) {
    CliProcess first(args);
    const bool started = wait_until([&] { return outbox.count() >= 3 || first.poll().has_value(); }, 20s);
    ASSERT_TRUE(has_queue_command(log_of(first))) << wire_main_hint << log_of(first);
    ASSERT_TRUE(started) << log_of(first);
    first.signal(SIGKILL);
    EXPECT_EQ(first.wait_for(10s), -SIGKILL);
}

// --------------------------------------------------------------------------------------------------- MySQL

class MySqlConsumerCrashTest : public MySqlTest {
protected:
    std::optional<SourceTable> source_table() const override { return queue_table_of_this_test(); }

    void enqueue(int count) {
        SinkSpec spec;
        spec.uri = mysql_url_;
        spec.queue = table_;
        auto sink = make_sink(spec);
        std::vector<Message> batch;
        for (int i = 0; i < count; ++i) batch.push_back({payload(i), 0, 0});
        sink->write(batch);
    }
    MySqlQueueOptions queue_options(int max_crashes = 100, ClaimMode mode = ClaimMode::skip_locked) const {
        MySqlQueueOptions queue;
        queue.table = table_;
        queue.max_crashes = max_crashes;
        queue.claim_mode = mode;
        return queue;
    }
    std::uint64_t count_status(const std::string& status) {
        auto rows = tables().rows("SELECT COUNT(*) FROM " + mysql::quote_identifier(table_) + " WHERE status = ?", {status});
        return std::stoull(*rows.at(0).at(0));
    }
    // KILLs a consumer's session from outside, as a crashed process or a network cut would end it. Its own
    // connection: consumer threads call this while the test thread queries.
    void kill_session(MySqlQueue& queue) {
        mysql::Connection(options()).execute_text("KILL CONNECTION " + std::to_string(queue.owner_id()));
    }

};

// Both claim modes: a skip_locked claim dies with its transaction, an update_then_select claim is
// committed and waits for the reaper.
class MySqlConsumerCrashModeTest : public MySqlConsumerCrashTest, public ::testing::WithParamInterface<ClaimMode> {};

TEST_P(MySqlConsumerCrashModeTest, KilledConsumersLoseNothingTheReaperReturnsTheirClaimsAtOnce) {
    constexpr int tasks = 20'000;
    enqueue(tasks);
    std::mutex seen_mutex;
    std::vector<std::string> seen;
    std::atomic<bool> stop{false};
    std::atomic<int> kills{0};

    std::thread reaper([&] {
        guarded(stop, [&] {
            MySqlQueue queue(options(), queue_options());
            while (!stop) {
                queue.reap(60s);  // only dead owners are due: the timeout is far away
                std::this_thread::sleep_for(100ms);
            }
        });
    });
    // Consumers 0-2 crash in the middle of every fifth batch: their session dies holding it, and they
    // come back with a new one, as a restarted process would.
    const auto consume = [&](int c) {
        auto queue = std::make_unique<MySqlQueue>(options(), queue_options(100, GetParam()));
        int batches = 0;
        while (!stop) {
            const auto claimed = queue->claim(50);
            if (claimed.empty()) {
                std::this_thread::sleep_for(20ms);
                continue;
            }
            {
                const std::lock_guard lock(seen_mutex);
                for (const Task& task : claimed) seen.push_back(task.payload);
            }
            if (c < 3 && ++batches % 5 == 0) {
                kill_session(*queue);
                ++kills;
                queue = std::make_unique<MySqlQueue>(options(), queue_options(100, GetParam()));
                continue;
            }
            queue->ack(claimed);
        }
    };
    std::vector<std::thread> consumers;
    for (int c = 0; c < 8; ++c) consumers.emplace_back([&, c] { guarded(stop, [&] { consume(c); }); });
    const bool all_done = wait_until([&] { return stop || count_status("done") == tasks; }, 60s);
    stop = true;
    for (auto& consumer : consumers) consumer.join();
    reaper.join();

    ASSERT_TRUE(all_done) << count_status("done") << " of " << tasks << " done; ready " << count_status("ready")
                          << ", claimed " << count_status("claimed");
    EXPECT_GT(kills.load(), 0);
    EXPECT_EQ(missing_payloads(seen, tasks), "");
    auto crashed = tables().rows("SELECT COUNT(*) FROM " + mysql::quote_identifier(table_) + " WHERE crashes > 0");
    EXPECT_GT(std::stoull(*crashed.at(0).at(0)), 0u) << "no task was ever taken back from a killed consumer";
}

INSTANTIATE_TEST_SUITE_P(Modes, MySqlConsumerCrashModeTest,
                         ::testing::Values(ClaimMode::skip_locked, ClaimMode::update_then_select),
                         [](const ::testing::TestParamInfo<ClaimMode>& mode) {
                             return mode.param == ClaimMode::skip_locked ? "skip_locked" : "update_then_select";
                         });

TEST_F(MySqlConsumerCrashTest, ATaskWhoseConsumersKeepDyingEndsDead) {
    enqueue(1);
    MySqlQueue reaper(options(), queue_options(2));
    for (int crash = 1; crash <= 2; ++crash) {
        MySqlQueue victim(options(), queue_options(2));
        ASSERT_EQ(victim.claim(1).size(), 1u) << "crash " << crash;
        kill_session(victim);
        // KILL ends the session asynchronously: reap until it is gone from the processlist.
        ASSERT_TRUE(wait_until(
            [&] {
                const ReapResult reaped = reaper.reap(60s);
                return reaped.released + reaped.dead > 0;
            },
            5s))
            << "crash " << crash;
    }
    EXPECT_EQ(count_status("dead"), 1u);
    auto row = tables().rows("SELECT crashes, last_error FROM " + mysql::quote_identifier(table_));
    EXPECT_EQ(*row.at(0).at(0), "2");
    EXPECT_NE(row.at(0).at(1)->find("claim taken back"), std::string::npos) << *row.at(0).at(1);
}

TEST_F(MySqlConsumerCrashTest, CliDrainsOnSigtermAndLeavesNothingClaimed) {
    enqueue(40);
    Outbox outbox;
    CliProcess consumer({"queue", "consume", "--source", mysql_url_, "--queue", table_, "--exec", outbox.command("0.2"),
                       "--concurrency", "2", "--batch", "5"});
    const bool started = wait_until([&] { return outbox.count() >= 4 || consumer.poll().has_value(); }, 20s);
    ASSERT_TRUE(has_queue_command(log_of(consumer))) << wire_main_hint << log_of(consumer);
    ASSERT_TRUE(started) << log_of(consumer);
    consumer.signal(SIGTERM);
    const auto stopped_at = Clock::now();
    EXPECT_EQ(consumer.wait_for(20s), 0) << log_of(consumer);
    EXPECT_LT(Clock::now() - stopped_at, 5s) << "a clean stop finishes one task per worker, not the whole batch";
    EXPECT_EQ(count_status("claimed"), 0u) << log_of(consumer);
    // Every task that ran was acknowledged, and every acknowledged task ran.
    std::vector<std::string> done;
    for (const Row& row : tables().rows("SELECT payload FROM " + mysql::quote_identifier(table_) + " WHERE status = 'done'"))
        done.push_back(*row.at(0));
    std::sort(done.begin(), done.end());
    EXPECT_EQ(outbox.payloads(), done);
    EXPECT_LT(done.size(), 40u) << "the consumer should have stopped early";
    EXPECT_EQ(count_status("ready"), 40u - done.size());
}

TEST_F(MySqlConsumerCrashTest, CliKilledWithSigkillLosesNothing) {
    enqueue(30);
    Outbox outbox;
    const std::vector<std::string> args{"queue", "consume", "--source", mysql_url_, "--queue", table_, "--exec",
                                        outbox.command("0.05"), "--concurrency", "2", "--batch", "5", "--reap-interval",
                                        "0.2"};
    ASSERT_NO_FATAL_FAILURE(kill_after_three_tasks(args, outbox));
    EXPECT_GT(count_status("claimed"), 0u) << "the killed consumer held no claims: nothing was tested";
    CliProcess second(args);
    const bool all_seen = wait_until([&] { return missing_payloads(outbox.payloads(), 30).empty(); }, 30s);
    second.signal(SIGTERM);
    EXPECT_EQ(second.wait_for(20s), 0) << log_of(second);
    EXPECT_TRUE(all_seen) << missing_payloads(outbox.payloads(), 30) << "\n" << log_of(second);
    EXPECT_EQ(count_status("done"), 30u) << log_of(second);
}

// The killed consumer's command outlives it, holding nothing of the consumer's (its connection used to
// stay open in the child, so its claims looked alive): --until-empty takes the claims back and runs the
// tasks again, counted as second deliveries. It used to exit 0 with the 50 still claimed.
TEST_F(MySqlConsumerCrashTest, UntilEmptyTakesBackTheClaimsOfAKilledConsumerAndCountsTheirDelivery) {
    enqueue(300);
    LingeringHandlers handlers;
    const std::vector<std::string> source{"queue", "consume", "--source", mysql_url_, "--queue", table_};
    std::vector<std::string> first_args = source;
    first_args.insert(first_args.end(), {"--exec", handlers.command(), "--batch", "50"});
    CliProcess first(first_args);
    ASSERT_TRUE(wait_until([&] { return handlers.started() == 1 || first.poll().has_value(); }, 20s)) << first.describe();
    ASSERT_EQ(count_status("claimed"), 50u) << first.describe();
    first.signal(SIGKILL);
    EXPECT_EQ(first.wait_for(10s), -SIGKILL);
    const auto runs = drain_counting_attempts(source);
    EXPECT_EQ(runs, (std::map<std::string, int>{{"1", 250}, {"2", 50}}));
    EXPECT_EQ(count_status("done"), 300u);
    EXPECT_EQ(count_status("claimed"), 0u);
}

// --------------------------------------------------------------------------------------------------- Redis

class RedisConsumerCrashTest : public RedisTest {
protected:
    void push(int count) {
        std::vector<std::string> arguments{"RPUSH", queue_};
        for (int i = 0; i < count; ++i) arguments.push_back(payload(i));
        std::vector<std::string_view> argv(arguments.begin(), arguments.end());
        connection_->command(argv);
    }
    RedisQueueOptions queue_options() const {
        RedisQueueOptions queue;
        queue.queue = queue_;
        queue.retry.max_attempts = 100;  // each recovery counts as an attempt: no task may die of bad luck
        return queue;
    }
public:
    long long ready_and_processing() {
        return connection_->command({"LLEN", queue_}).integer + processing_tasks(*connection_, queue_);
    }

protected:
    std::size_t processing_lists() { return rowpump::test::processing_lists(*connection_, queue_).size(); }

};

TEST_F(RedisConsumerCrashTest, SilentConsumersAreRecoveredAndNothingIsLost) {
    constexpr int tasks = 20'000;
    push(tasks);
    std::mutex mutex;
    std::vector<std::string> seen;
    std::set<std::string> alive;  // consumers the heartbeat thread beats for
    std::atomic<bool> stop{false};
    std::atomic<int> deaths{0};

    // The heartbeat thread beats for the living consumers only; a dead one's beat expires after 300 ms.
    const auto keep = [&] {
        RedisQueue queue(options_, queue_options());
        while (!stop) {
            std::vector<std::string> names;
            {
                const std::lock_guard lock(mutex);
                names.assign(alive.begin(), alive.end());
            }
            queue.heartbeat(names);
            queue.reap(300ms);
            std::this_thread::sleep_for(50ms);
        }
    };
    // Consumers 0 and 1 die holding every tenth batch (no ack, no more heartbeats) and come back under a
    // new name.
    const auto consume = [&](int c) {
        auto queue = std::make_unique<RedisQueue>(options_, queue_options());
        {
            const std::lock_guard lock(mutex);
            alive.insert(queue->consumer());
        }
        int batches = 0;
        while (!stop) {
            const auto popped = queue->claim(50, 50ms);
            {
                const std::lock_guard lock(mutex);
                for (const Task& task : popped) seen.push_back(task.payload);
            }
            if (c < 2 && !popped.empty() && ++batches % 10 == 0) {
                ++deaths;
                const std::lock_guard lock(mutex);
                alive.erase(queue->consumer());
                queue = std::make_unique<RedisQueue>(options_, queue_options());
                alive.insert(queue->consumer());
                continue;
            }
            queue->ack(popped);
        }
    };
    std::thread keeper([&] { guarded(stop, keep); });
    std::vector<std::thread> consumers;
    for (int c = 0; c < 8; ++c) consumers.emplace_back([&, c] { guarded(stop, [&] { consume(c); }); });
    const auto seen_so_far = [&] {
        const std::lock_guard lock(mutex);
        return seen;
    };
    const bool drained = wait_until(
        [&] {
            return stop || (connection_->command({"LLEN", queue_}).integer == 0 && processing_lists() == 0 &&
                            missing_payloads(seen_so_far(), tasks).empty());
        },
        60s);
    stop = true;
    for (auto& consumer : consumers) consumer.join();
    keeper.join();
    EXPECT_TRUE(drained) << "ready " << connection_->command({"LLEN", queue_}).integer << ", processing lists "
                         << processing_lists();
    EXPECT_GT(deaths.load(), 0);
    EXPECT_EQ(missing_payloads(seen, tasks), "");
    EXPECT_EQ(connection_->command({"LLEN", redis::dead_list(queue_)}).integer, 0);
}

TEST_F(RedisConsumerCrashTest, CliKilledWithSigkillIsRecoveredByTheNextRunOnceItsHeartbeatExpires) {
    push(30);
    Outbox outbox;
    std::vector<std::string> args{"queue", "consume", "--source", url_, "--queue", queue_, "--exec",
                                  outbox.command("0.05"), "--concurrency", "2", "--batch", "5",
                                  "--heartbeat-timeout", "1", "--reap-interval", "0.2"};
    ASSERT_NO_FATAL_FAILURE(kill_after_three_tasks(args, outbox));
    ASSERT_GT(processing_lists(), 0u) << "the killed consumer held nothing: nothing was tested";
    CliProcess second(args);
    const bool all_seen = wait_until([&] { return missing_payloads(outbox.payloads(), 30).empty(); }, 30s);
    const bool drained = wait_until([&] { return processing_lists() == 0 || second.poll().has_value(); }, 10s);
    second.signal(SIGTERM);
    EXPECT_EQ(second.wait_for(20s), 0) << log_of(second);
    EXPECT_TRUE(all_seen) << missing_payloads(outbox.payloads(), 30) << "\n" << log_of(second);
    EXPECT_TRUE(drained);
    EXPECT_EQ(connection_->command({"LLEN", queue_}).integer, 0);
    EXPECT_EQ(connection_->command({"ZCARD", redis::consumers_set(queue_)}).integer, 0) << "consumers did not sign off";
}

// As for MySQL: the dead consumer's processing list comes back once its heartbeat expires, and
// --until-empty waits for that instead of exiting with 50 tasks in it. With the same --consumer name the
// successor takes the list over at once; either way each of them is a second delivery.
void kill_a_consumer_holding_50_then_drain(RedisConsumerCrashTest& test, const std::vector<std::string>& source) {
    LingeringHandlers handlers;
    std::vector<std::string> first_args = source;
    first_args.insert(first_args.end(), {"--exec", handlers.command(), "--batch", "50"});
    CliProcess first(first_args);
    ASSERT_TRUE(wait_until([&] { return handlers.started() == 1 || first.poll().has_value(); }, 20s)) << first.describe();
    first.signal(SIGKILL);
    EXPECT_EQ(first.wait_for(10s), -SIGKILL);
    const auto runs = drain_counting_attempts(source);
    EXPECT_EQ(runs, (std::map<std::string, int>{{"1", 250}, {"2", 50}}));
    EXPECT_EQ(test.ready_and_processing(), 0);
}

TEST_F(RedisConsumerCrashTest, UntilEmptyWaitsForAKilledConsumersTasksAndCountsTheirDelivery) {
    push(300);
    kill_a_consumer_holding_50_then_drain(
        *this, {"queue", "consume", "--source", url_, "--queue", queue_, "--heartbeat-timeout", "1"});
}

TEST_F(RedisConsumerCrashTest, ASuccessorOfTheSameNameCountsTheDeliveryOfWhatItTakesOver) {
    push(300);
    kill_a_consumer_holding_50_then_drain(
        *this, {"queue", "consume", "--source", url_, "--queue", queue_, "--consumer", "rp_test_successor"});
}

TEST_F(RedisConsumerCrashTest, CliRetriesAFailingTaskWithBackoffThenMarksItDead) {
    push(10);
    Outbox outbox;
    // Task 3 always fails; the others succeed.
    const std::string exec = "p=$(cat); case \"$p\" in *'\"n\":3}'*) echo \"cannot handle $p\" >&2; exit 7;; esac; printf %s \"$p\" | (" +
                             outbox.command("0") + ")";
    CliProcess consumer({"queue", "consume", "--source", url_, "--queue", queue_, "--exec", exec, "--max-attempts", "3",
                       "--backoff", "0.05", "--backoff-cap", "0.1"});
    const bool dead = wait_until([&] { return connection_->command({"LLEN", redis::dead_list(queue_)}).integer == 1 || consumer.poll().has_value(); }, 20s);
    ASSERT_TRUE(has_queue_command(log_of(consumer))) << wire_main_hint << log_of(consumer);
    consumer.signal(SIGTERM);
    EXPECT_EQ(consumer.wait_for(20s), 0) << log_of(consumer);
    ASSERT_TRUE(dead) << log_of(consumer);
    EXPECT_EQ(list_items(*connection_, redis::dead_list(queue_)), std::vector<std::string>{payload(3)});
    EXPECT_EQ(outbox.count(), 9u);
    const std::string log = log_of(consumer);
    EXPECT_NE(log.find("attempt 1 of 3, will retry"), std::string::npos) << log;
    EXPECT_NE(log.find("exit status 7: cannot handle {\"n\":3}"), std::string::npos) << log;
    EXPECT_NE(log.find("attempt 3 of 3, now dead"), std::string::npos) << log;
}

}  // namespace
}  // namespace rowpump::test
