#pragma once
// The one reading of a SinkSpec's target, typed (SinkSpec::redis(), SinkSpec::mysql()) or written as a
// URI: the sinks, the job stores, the job checks and the YAML loader all ask here.
#include <optional>
#include <string>

#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"
#include "url.hpp"

namespace rowpump {

struct SinkTarget {
    TargetKind kind = TargetKind::stdout_stream;
    std::string path;                   // file: the path
    std::optional<RedisOptions> redis;  // redis: the connection
    std::optional<MySqlOptions> mysql;  // mysql: the connection, with the spec's retry budget
};

// What the spec names, without parsing more than its scheme. Throws UsageError for an unknown one.
TargetKind sink_kind(const SinkSpec& spec);
// The target, parsed in full (no connection is made). Throws UsageError for a malformed URI.
SinkTarget sink_target(const SinkSpec& spec);

}  // namespace rowpump
