#pragma once
// MySqlQueue's state, shared by the consumer operations (mysql_queue.cpp) and the maintenance ones
// (mysql_queue_admin.cpp).
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mysql/connection.hpp"
#include "mysql/transaction.hpp"
#include "backend/mysql_queue/claim_cursors.hpp"
#include "backend/mysql_queue/mysql_queue_sql.hpp"
#include "rowpump/queue.hpp"

namespace rowpump {

struct MySqlQueue::Impl {
    Impl(MySqlOptions mysql, MySqlQueueOptions queue);

    // Priorities that had a task available at most levels_ttl ago, highest first; `fresh` asks the server
    // now. A claim asks again whenever the cached levels gave it nothing, so a cached answer can only hide
    // a level that appeared in the meantime: a task of a new, higher priority waits at most levels_ttl.
    const std::vector<std::int64_t>& due_levels(bool fresh);
    // Every priority that has a ready row, highest first, with the microseconds since its earliest
    // available_at (negative: none due yet).
    std::vector<std::pair<std::int64_t, std::int64_t>> ready_levels();
    // Whether the row is done at this version: after an ack that changed fewer rows than it named, tells
    // the tasks acknowledged before (or by a lost reply) from the stale ones.
    bool is_done_at(std::uint64_t id, std::uint64_t version);
    // Sets up the session: READ COMMITTED, so claims lock the rows they take and no gaps.
    void prepare_session();
    // Claims up to n due rows of priority `level`, after the level's cursor first (mysql_queue_sql.hpp):
    // reads them, (skip_locked: locks them,) marks them claimed, and appends those it got to `tasks`.
    // Returns whether the level has no due rows left; it may also stop short when other consumers are
    // claiming the same rows.
    bool claim_at(std::int64_t level, std::size_t n, std::vector<Task>& tasks);
    // skip_locked: locks the rows just read that are still ready at the version read, skipping those
    // another consumer has locked, and drops the others from `read`.
    void keep_locked(std::vector<Task>& read);
    // Marks the rows just read claimed, at the version read; drops from `read` those another consumer
    // took in between, and moves the rest to their claimed version.
    void claim_ready(std::vector<Task>& read);
    // Calls `action`, retrying transient failures (deadlocks, a lost connection) on a session set up again.
    template <class Action>
    auto run(Action&& action) -> decltype(action());
    // Runs `action` inside a transaction (mysql/transaction.hpp: rolled back if it throws).
    template <class Action>
    auto in_transaction(Action&& action) -> decltype(action());

    mysql::Connection connection;
    MySqlQueueOptions options;
    queue::QueueSql sql;
    std::vector<std::int64_t> levels;
    std::chrono::steady_clock::time_point levels_expire;
    // Where this process's claims on the table have read up to (claim_cursors.hpp).
    std::shared_ptr<queue::ClaimCursors> cursors;
    // Consumers in other processes read after cursors of their own and meet this one on the same next
    // rows; a claim that loses such a race reads again. While claims keep colliding, the next read skips
    // a random 0 to spread-1 batches past the cursor, and spread doubles (up to max_spread); it halves
    // with each read that collides with no one. The rows skipped are the other consumers', or wait for a
    // read from the head. 8 consumer processes: 8.3-8.6k tasks/s before, 14.8-18.3k after
    // (bench/results/queue.md).
    unsigned spread = 1;
    std::minstd_rand spread_random{std::random_device{}()};
};

// Asking for the levels costs a statement per claim, as much as the claim itself at batch 1.
inline constexpr std::chrono::milliseconds levels_ttl{200};
// Reads a claim makes at one level before it gives up on rows other consumers keep taking first. A
// bound, because in skip_locked the claim's transaction keeps growing its lock memory until it commits.
inline constexpr int max_reads_per_claim = 16;
inline constexpr unsigned max_spread = 16;

template <class Action>
auto MySqlQueue::Impl::run(Action&& action) -> decltype(action()) {
    bool retry = false;
    return connection.retrying([&] {
        if (retry) prepare_session();
        retry = true;
        return action();
    });
}

template <class Action>
auto MySqlQueue::Impl::in_transaction(Action&& action) -> decltype(action()) {
    // A claim whose COMMIT is in doubt is retried like any lost connection: what the dead session claimed,
    // if anything, is reaped (its owner is gone).
    mysql::Transaction transaction(connection);
    if constexpr (std::is_void_v<decltype(action())>) {
        action();
        transaction.commit();
    } else {
        auto result = action();
        transaction.commit();
        return result;
    }
}

}  // namespace rowpump
