#pragma once
// The registry of queue backends: which backend a sink or a queue source names. The only code that knows
// every backend; the rest asks it.
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace rowpump {

// Where a URI is used: a sink takes every backend, a queue source only those that hold a queue.
enum class TargetRole { sink, queue_source };

// The backend of a sink: its typed target, else its URI's scheme. Throws UsageError, in one line that
// names the accepted forms, for an unknown scheme ("unsupported sink 'kafka://b': expected stdout, ...").
const Backend& backend_for(const SinkSpec& spec);
// The backend a URI's scheme names, for `role`; reads the scheme only. Throws UsageError as above.
const Backend& backend_for_uri(const std::string& uri, TargetRole role);

// The backend of a queue source: its typed connection, else its URL's scheme (TargetRole::queue_source).
const Backend& backend_for(const QueueSource& source);
// The source with its connection typed by its backend (Backend::parse_source). Throws UsageError.
QueueSource typed_source(const QueueSource& source);

// make_sink()'s checks, before a run has passed its own: a file is not opened (so not truncated), a server
// is reached and its queue checked.
void check_sink(const SinkSpec& spec);
// The job store beside the sink's queue. Throws UsageError for a bad job id, or a sink that keeps no job.
std::unique_ptr<JobStore> open_job_store(const SinkSpec& sink, const JobDefinition& definition);
// The jobs kept beside the sink's queue (`rowpump job`). Throws UsageError for a sink that keeps none, or a
// state prefix where the jobs are tables.
std::unique_ptr<JobAdmin> open_job_admin(const SinkSpec& sink, const std::string& state_prefix);

}  // namespace rowpump
