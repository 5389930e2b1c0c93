#pragma once
// The part of a backend's QueueConsumer that hands each call straight to its queue (MySqlQueue,
// RedisQueue): acknowledging, failing and releasing tasks, which every queue does with the same calls.
// Claiming, the backlog, reaping and heartbeats differ by backend and stay with each consumer.
#include <string>
#include <utility>
#include <vector>

#include "queue/queue_consumer.hpp"

namespace rowpump {

template <class Queue>
class ForwardingConsumer : public QueueConsumer {
public:
    void ack(const Task& task) override { queue_.ack(task); }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override { return queue_.ack(tasks); }
    FailOutcome fail(const Task& task, const std::string& error) override { return queue_.fail(task, error); }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        return queue_.fail(task, error, policy);
    }
    void release(const std::vector<Task>& tasks) override { queue_.release(tasks); }

protected:
    template <class... Args>
    explicit ForwardingConsumer(Args&&... queue_args) : queue_(std::forward<Args>(queue_args)...) {}

    Queue queue_;
};

}  // namespace rowpump
