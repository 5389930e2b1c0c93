#pragma once
// RedisQueue's state, shared by the consumer operations (redis_queue.cpp) and the maintenance ones
// (redis_queue_admin.cpp).
#include <chrono>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/redis/redis_queue_scripts.hpp"
#include "backend/redis/redis_script.hpp"
#include "redis/connection.hpp"
#include "rowpump/queue.hpp"

namespace rowpump {

struct RedisQueue::Impl {
    Impl(RedisOptions redis, RedisQueueOptions queue);

    // Calls `action` on a live connection, retrying lost connections for up to the RedisOptions' retry budget. After a
    // retry the processing list is looked at again (see adopt_unknown_tasks).
    template <class Action>
    auto run(Action&& action) -> decltype(action());

    // Tasks in this consumer's processing list that it does not know it holds: what a predecessor of the
    // same name held when it died, or what a pop moved before its reply was lost. They are this
    // consumer's now and are handed out before anything new.
    void adopt_unknown_tasks();
    // Runs the pop script for up to n tasks, appending what it moved.
    void pop_ready(std::size_t n, std::vector<Task>& out);
    void hold(const std::string& payload);
    void forget(const std::string& payload);

    redis::Connection connection;
    RedisQueueOptions options;
    std::string processing;
    std::string attempts;
    std::string delayed;
    std::string dead;
    std::string consumers;
    std::string return_list;
    std::vector<std::string> ready_lists;  // priority lists in order, then Q
    std::string score_unit_ms;             // the delayed set's score unit in ms: "1" or "1000"

    queue::RedisScript pop_script{queue::scripts::pop};
    queue::RedisScript ack_script{queue::scripts::ack};
    queue::RedisScript fail_script{queue::scripts::fail};
    queue::RedisScript release_script{queue::scripts::release};
    queue::RedisScript heartbeat_script{queue::scripts::heartbeat};
    queue::RedisScript leave_script{queue::scripts::leave};
    queue::RedisScript expired_script{queue::scripts::expired};
    queue::RedisScript recover_script{queue::scripts::recover};
    queue::RedisScript promote_script{queue::scripts::promote};
    queue::RedisScript backlog_script{queue::scripts::backlog};
    queue::RedisScript requeue_dead_script{queue::scripts::requeue_dead};

    std::unordered_map<std::string, std::size_t> held;  // payload -> copies popped and not finished
    std::deque<Task> adopted;                            // handed out by the next pops
    bool look_for_unknown_tasks = true;
    // The first look finds what a predecessor of the same name held when it died; later ones (after a
    // lost connection) what a pop of this consumer moved before its reply was lost.
    bool adopting_predecessor = true;
    bool has_beaten = false;
};

// Tasks per pop or ack script call: unpack() in the scripts handles a few thousand arguments, and a
// script this size keeps the server's other clients waiting well under a millisecond.
inline constexpr std::size_t max_tasks_per_script = 1000;

template <class Action>
auto RedisQueue::Impl::run(Action&& action) -> decltype(action()) {
    return connection.retrying([&] {
        try {
            return action();
        } catch (const QueueError& error) {
            if (error.is_transient()) look_for_unknown_tasks = true;
            throw;
        }
    });
}

}  // namespace rowpump
