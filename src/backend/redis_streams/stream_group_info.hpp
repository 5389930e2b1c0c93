#pragma once
// What a stream and one of its consumer groups say of themselves (XLEN, XINFO GROUPS, XINFO CONSUMERS): the
// backlog of a draining consumer and `queue stats` read them.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "redis/connection.hpp"
#include "rowpump/queue.hpp"

namespace rowpump {

struct StreamGroupInfo {
    bool group_exists = false;
    std::uint64_t length = 0;   // the stream's entries, acknowledged ones included
    std::uint64_t waiting = 0;  // not delivered to the group yet: its lag
    std::uint64_t pending = 0;  // delivered and not acknowledged
    std::uint64_t dead = 0;     // entries of <stream>:dead
};

// Not retried: the caller's retrying() is. A missing stream or group reads as empty.
StreamGroupInfo read_group_info(redis::Connection& connection, const std::string& stream, const std::string& group);
// The group's consumers: pending entries each, and how long since each last read (alive within `timeout`).
std::vector<QueueStats::Holder> read_group_consumers(redis::Connection& connection, const std::string& stream,
                                                     const std::string& group, std::chrono::milliseconds timeout);

}  // namespace rowpump
