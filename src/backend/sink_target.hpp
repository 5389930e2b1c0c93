#pragma once
// The connection options of a sink's server, typed (SinkSpec::redis(), SinkSpec::mysql()) or read from its
// URI, with the spec's timeouts and retry budget: the sinks and the job stores of a backend connect with
// these, so every connection to one server waits and retries alike.
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

// Throw UsageError for a malformed URI; nothing connects.
MySqlOptions sink_mysql_options(const SinkSpec& spec);
// With the spec's stop flag too: a stop ends a wait on a frozen Redis.
RedisOptions sink_redis_options(const SinkSpec& spec);

}  // namespace rowpump
