#pragma once
// A queue backend: where a sink's rows go and where a job's checkpoints live beside them. Each one is a
// folder of src/backend/ (file/, redis/, mysql_queue/) with one Backend, and the registry
// (backend/registry/) is the only place that maps a sink to its backend: by its typed target
// (SinkSpec::redis(), SinkSpec::mysql()) or by its URI's scheme. Everything
// else asks the backend, never which kind of sink it is. A new backend is a new folder and one line of the
// registry.
#include <memory>
#include <string>
#include <string_view>

#include "checkpoint/job_store.hpp"
#include "rowpump/queue.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

// What a backend accepts of a job's options: the checks made before anything connects read these.
struct BackendTraits {
    bool takes_queue = false;     // --queue names something there (a list, a table), and is required
    bool redis_keys = false;      // the Redis key options apply (list and delayed keys, scores, members,
                                  // the job's state prefix)
    bool worker_formats = false;  // Sidekiq and Celery jobs may be written there (a server of their workers,
                                  // or a stream or file to look at them)
    bool replaces_files = false;  // --overwrite has something to replace
    bool keeps_jobs = false;      // a job id's checkpoints can be kept beside the queue
};

class Backend {
public:
    virtual ~Backend() = default;
    // How its targets are written, for the line that lists what is accepted: "redis://[user:pass@]host:port/db".
    virtual std::string_view form() const = 0;
    // What it is, in an error that says an option does not apply: "a MySQL queue table".
    virtual std::string_view what() const = 0;
    virtual BackendTraits traits() const = 0;
    // What the queue name means there ("the MySQL queue table, created when missing"); empty: none.
    virtual std::string_view queue_meaning() const { return {}; }
    // Reads the target in full, connecting to nothing. Throws UsageError for a malformed one.
    virtual void parse_target(const SinkSpec& spec) const = 0;
    // Checks the spec (queue name, reachability, the queue's shape) and opens a sink: make_sink().
    virtual std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const = 0;
    // Refuses the key names (and, for a job, `state_prefix`) the sink and job store would refuse, before
    // anything connects. Only called when traits().redis_keys.
    virtual void check_key_names(const SinkSpec&, const std::string* /*state_prefix*/) const {}
    // make_sink's checks before a run has passed its own: nothing is truncated or written.
    virtual void check_sink(const SinkSpec& spec) const { make_sink(spec); }
    // The job store beside the queue. Only called when traits().keeps_jobs.
    virtual std::unique_ptr<JobStore> open_job_store(const SinkSpec& spec, const JobDefinition& definition) const;
    // The Redis server a queue's consumers talk to (a cluster: the owner of the queue's slot). Only called
    // when traits().redis_keys. Throws UsageError for a malformed URI or keys that cannot be served.
    virtual RedisOptions redis_server(const std::string& uri, const RedisQueueOptions& queue) const;
};

}  // namespace rowpump
