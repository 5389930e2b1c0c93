#pragma once
// The newest tasks this consumer saw go dead, with the reason their handler gave, for the status page
// (queue consume --http, GET /status's dead_tasks). Kept in memory as they happen, so showing them costs
// the queue nothing; tasks that went dead in other processes (or before this one started) are in the
// queue's dead state, which the page counts and `queue requeue-dead` (POST /requeue-dead) runs again.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "rowpump/consumer.hpp"

namespace rowpump::cli {

struct DeadTask {
    std::uint64_t id = 0;  // MySQL: the row id; Redis: 0
    int attempt = 0;
    std::string error;    // the handler's reason (its exit status and stderr's end, or what it threw)
    std::string payload;  // its first bytes
    std::chrono::steady_clock::time_point when;
};

class DeadTasks {
public:
    static constexpr std::size_t kept = 20;

    // On the handler's thread, when a handler call on tasks[0, count) returned (one result each) or threw:
    // the reasons, for concluded() on the same thread to find by the task's address.
    static void answered(const TaskContext* tasks, const std::vector<TaskResult>& results);
    static void answered(const TaskContext* tasks, const TaskResult& result);
    static void threw(const TaskContext* tasks, std::size_t count, const std::string& what);

    // ConsumerOptions::on_outcome: a dead task is kept, the oldest dropped past `kept`.
    void concluded(const TaskContext& task, TaskOutcome outcome);
    // Newest first.
    std::vector<DeadTask> newest() const;

private:
    mutable std::mutex mutex_;
    std::deque<DeadTask> tasks_;  // newest first
};

}  // namespace rowpump::cli
