#pragma once
// One consumer thread's handle on a queue, whichever the backend: MySqlQueue or RedisQueue behind the
// acts they share, plus what a consumer loop needs around them (waiting for work, naming a task in a log
// line). `rowpump queue consume` runs one per worker thread. Each backend opens its own
// (Backend::open_consumer, src/backend/).
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "rowpump/queue.hpp"

namespace rowpump {

class QueueConsumer {
public:
    virtual ~QueueConsumer() = default;
    // Up to n tasks; waits up to `wait` when none is ready (MySQL polls with a growing pause).
    virtual std::vector<Task> claim(std::size_t n, std::chrono::milliseconds wait) = 0;
    virtual void ack(const Task& task) = 0;  // throws StaleClaim
    // Several at once, in one round trip; returns the positions of the stale ones (not acknowledged).
    virtual std::vector<std::size_t> ack(const std::vector<Task>& tasks) = 0;
    virtual FailOutcome fail(const Task& task, const std::string& error) = 0;  // throws StaleClaim
    // With the delay and max attempts of `policy` instead of the queue's (a handler's retry or dead).
    virtual FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) = 0;
    virtual void release(const std::vector<Task>& tasks) = 0;
    // What a draining consumer still waits for when claim() found nothing (see rowpump::Backlog).
    virtual Backlog backlog() = 0;
    // Takes back the claims of consumers that are gone or stalled, as the QueueMaintainer does: MySQL, the
    // claims whose connection is gone or that are older than the claim timeout; Redis, the processing
    // lists of consumers whose heartbeat is older than the heartbeat timeout.
    virtual ReapResult reap() = 0;
    // Called regularly while a task runs. MySQL: renews the claims once a third of the claim timeout has
    // passed since the last renewal. Redis: nothing, its heartbeats come from the QueueMaintainer.
    virtual void heartbeat() = 0;
    // Clean shutdown, after the tasks in hand are finished or released.
    virtual void leave() = 0;
    // "task 42 (57 bytes)" / "task #1f0c33a2 (57 bytes)" for log lines: never the payload, which is user data.
    virtual std::string describe(const Task& task) const = 0;
    // Redis: this consumer's name (for the maintainer's heartbeats); MySQL: empty.
    virtual std::string name() const = 0;
};

}  // namespace rowpump
