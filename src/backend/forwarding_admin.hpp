#pragma once
// The part of a backend's QueueAdmin that opens its queue (MySqlQueue, RedisQueue) for each command and
// hands the command to it: each command connects for itself (queue/queue_admin.hpp), so init can create
// what the others then check. What differs by backend (init, stats, promote, purge) stays with each admin.
#include <chrono>
#include <cstdint>
#include <utility>

#include "queue/queue_admin.hpp"

namespace rowpump {

template <class Queue, class Connection, class Options>
class ForwardingAdmin : public QueueAdmin {
public:
    ReapResult reap() override { return open().reap(timeout_); }
    std::uint64_t requeue_dead(std::uint64_t limit) override { return open().requeue_dead(limit); }

protected:
    ForwardingAdmin(Connection connection, Options queue, std::chrono::milliseconds timeout)
        : connection_(std::move(connection)), queue_(std::move(queue)), timeout_(timeout) {}

    Queue open() const { return Queue(connection_, queue_); }

    Connection connection_;
    Options queue_;
    // After how long a claim counts as lost: the claim timeout (MySQL) or the heartbeat timeout (Redis).
    std::chrono::milliseconds timeout_;
};

}  // namespace rowpump
