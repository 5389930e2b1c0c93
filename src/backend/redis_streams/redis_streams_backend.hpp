#pragma once
// A Redis stream: one entry a row (--push xadd), a job's state in the Redis backend's hashes beside it, and
// consumer groups on the other end (docs/streams.md). It shares the redis:// schemes with the lists'
// backend: the registry picks it by the push mode for a sink, and by the consumer group for a queue source.
#include "backend/backend.hpp"

namespace rowpump {

const Backend& redis_streams_backend();

}  // namespace rowpump
