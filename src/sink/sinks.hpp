#pragma once
// The sinks behind make_sink(), one per kind of target. Each factory checks what it can before the first
// write (reachability, key types, table shape), so a bad target fails at start, not mid-run.
#include <memory>
#include <string>

#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

// `path` is a file path, or empty for stdout. Throws UsageError when `path` is an existing regular file
// and `overwrite` is false.
std::unique_ptr<Sink> make_ndjson_sink(const std::string& path, bool overwrite);
// make_ndjson_sink's checks, opening nothing (an existing file is left as it is).
void check_ndjson_target(const std::string& path, bool overwrite);
std::unique_ptr<Sink> make_redis_sink(const SinkSpec& spec, RedisOptions options);
std::unique_ptr<Sink> make_mysql_queue_sink(const SinkSpec& spec, MySqlOptions options);

// What make_sink checks, before a run has passed its own checks: a file is not opened (so not truncated),
// a server is reached and its queue checked.
void check_sink(const SinkSpec& spec);

// The connection options of a MySQL or Redis sink (typed or its URL), with the spec's timeouts (and,
// for Redis, its stop flag).
MySqlOptions sink_mysql_options(const SinkSpec& spec);
RedisOptions sink_redis_options(const SinkSpec& spec);

}  // namespace rowpump
