#pragma once
// MySqlQueue's state, shared by the consumer operations (mysql_queue.cpp) and the maintenance ones
// (mysql_queue_admin.cpp).
#include <chrono>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "mysql/connection.hpp"
#include "queue/mysql_queue_sql.hpp"
#include "rowpump/queue.hpp"

namespace rowpump {

struct MySqlQueue::Impl {
    Impl(MySqlOptions mysql, MySqlQueueOptions queue);

    // Priorities that had a task available at most levels_ttl ago, highest first; `fresh` asks the server
    // now. A claim asks again whenever the cached levels gave it nothing, so a cached answer can only hide
    // a level that appeared in the meantime: a task of a new, higher priority waits at most levels_ttl.
    const std::vector<std::int64_t>& due_levels(bool fresh);
    // Whether the row is done at this version: after an ack that changed fewer rows than it named, tells
    // the tasks acknowledged before (or by a lost reply) from the stale ones.
    bool is_done_at(std::uint64_t id, std::uint64_t version);
    // Sets up the session: READ COMMITTED, so claims lock the rows they take and no gaps.
    void prepare_session();
    // Calls `action`, retrying transient failures (deadlocks, a lost connection) on a session set up again.
    template <class Action>
    auto run(Action&& action) -> decltype(action());
    // Runs `action` inside a transaction; rolls back (when the connection still works) if it throws.
    template <class Action>
    auto in_transaction(Action&& action) -> decltype(action());

    mysql::Connection connection;
    MySqlQueueOptions options;
    queue::QueueSql sql;
    // id -> version of every claim this object made and has not finished: a claim's read-back returns
    // every row the session owns, and these are not new.
    std::unordered_map<std::uint64_t, std::uint64_t> held;
    std::vector<std::int64_t> levels;
    std::chrono::steady_clock::time_point levels_expire;
};

// Asking for the levels costs a statement per claim, as much as the claim itself at batch 1.
inline constexpr std::chrono::milliseconds levels_ttl{200};

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
    connection.execute_text("START TRANSACTION");
    try {
        if constexpr (std::is_void_v<decltype(action())>) {
            action();
            connection.execute_text("COMMIT");
        } else {
            auto result = action();
            connection.execute_text("COMMIT");
            return result;
        }
    } catch (...) {
        // A deadlock already rolled back; a lock wait timeout or any other error leaves the transaction
        // open, and its locks would outlive it. A dead connection rolls back on the server by itself.
        if (connection.alive()) {
            try {
                connection.execute_text("ROLLBACK");
            } catch (const Error&) {
            }
        }
        throw;
    }
}

}  // namespace rowpump
