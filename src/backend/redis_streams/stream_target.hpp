#pragma once
// A stream sink's target, read from its SinkSpec once (--push xadd): the Redis backend's connection, WAIT
// and state keys (redis_target.hpp), the stream's key (the queue's name) and its trim length.
#include <cstdint>
#include <string>

#include "backend/redis/redis_target.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

struct StreamTarget {
    RedisTarget redis;  // its keys.queue is the stream's key
    std::uint64_t maxlen = 0;  // XADD MAXLEN ~ maxlen; 0: no trim
};

// Throws UsageError (exit 2) for what a stream cannot honour: priority lists, the list backend's key names
// (--list-key, --delayed-key, --delay-score, --delayed-members), a worker layout; and for a malformed URI.
// Nothing connects.
StreamTarget stream_target(const SinkSpec& spec);
// The same checks, without reading the URI.
void check_stream_spec(const SinkSpec& spec);

}  // namespace rowpump
