#include <string_view>

#include "rowpump/error.hpp"
#include "rowpump/sink.hpp"
#include "sink/sink_target.hpp"
#include "sink/sinks.hpp"

namespace rowpump {

namespace {

void require_queue(const SinkSpec& spec, std::string_view what) {
    if (spec.queue.empty())
        throw UsageError("no queue given for " + redact_url(spec.uri) + ": pass --queue NAME (the " +
                         std::string(what) + ")");
}

}  // namespace

std::unique_ptr<Sink> make_sink(const SinkSpec& spec) {
    // The queue is checked before the target is parsed in full, and before anything connects.
    const TargetKind kind = sink_kind(spec);
    if (kind == TargetKind::stdout_stream) return make_ndjson_sink("", false);
    if (kind == TargetKind::file) return make_ndjson_sink(target_file_path(spec.uri), spec.overwrite);
    if (kind == TargetKind::redis) {
        require_queue(spec, "Redis list name, also the prefix of its other keys");
        return make_redis_sink(spec, *sink_target(spec).redis);
    }
    require_queue(spec, "queue table");
    return make_mysql_queue_sink(spec, sink_mysql_options(spec));
}

void check_sink(const SinkSpec& spec) {
    const TargetKind kind = sink_kind(spec);
    if (kind == TargetKind::stdout_stream) return;
    if (kind == TargetKind::file) return check_ndjson_target(target_file_path(spec.uri), spec.overwrite);
    make_sink(spec);  // a server is reached and its queue checked; nothing is written
}

}  // namespace rowpump
