#include "checkpoint/job_store.hpp"
#include "queue/redis_queue_keys.hpp"
#include "rowpump/error.hpp"
#include "sink/sink_target.hpp"

namespace rowpump {

std::unique_ptr<JobStore> open_mysql_job_store(const SinkSpec& sink, const JobDefinition& definition);
std::unique_ptr<JobStore> open_redis_job_store(const SinkSpec& sink, const JobDefinition& definition);

std::unique_ptr<JobStore> open_job_store(const SinkSpec& sink, const JobDefinition& definition) {
    if (definition.job_id.empty() || definition.job_id.size() > 191)
        throw UsageError("a job id must be 1 to 191 characters, got '" + definition.job_id + "'");
    const TargetKind kind = sink_kind(sink);
    if (kind == TargetKind::redis) {
        redis::check_state_prefix(definition.state_prefix);
        return open_redis_job_store(sink, definition);
    }
    if (definition.state_prefix != redis::default_state_prefix)
        throw UsageError("a state prefix names Redis keys, and " + redact_url(sink.uri) +
                         " keeps job state in tables: drop --state-prefix, or write to a redis:// sink");
    if (kind == TargetKind::mysql) return open_mysql_job_store(sink, definition);
    throw UsageError("a job id needs a redis:// or mysql:// sink: the job's checkpoints are stored beside the "
                     "queue, in the same atomic step as the rows");
}

}  // namespace rowpump
