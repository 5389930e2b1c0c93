#pragma once
// A queue backend: where a sink's rows go, where a job's checkpoints live beside them, and how consumers
// take the rows back out. Each one is a
// folder of src/backend/ (file/, redis/, mysql_queue/) with one Backend, and the registry
// (backend/registry/) is the only place that maps a sink to its backend: by its typed target
// (SinkSpec::redis(), SinkSpec::mysql()) or by its URI's scheme. Everything
// else asks the backend, never which kind of sink it is. A new backend is a new folder and one line of the
// registry.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/job_admin.hpp"
#include "checkpoint/job_store.hpp"
#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"
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
    bool claims_expire = false;   // its consumers' claims are taken back after ConsumerOptions::claim_timeout
    bool waits_for_replicas = false;  // --redis-wait applies: each page waits for the server's replicas (WAIT)
    bool shards = false;              // --shards applies: one queue spread over the hash slots of a cluster
};

// What a backend says of itself, fixed for all its sinks: data each backend gives its base, not behaviour.
struct BackendDescription {
    // How its targets are written, for the line that lists what is accepted: "redis://[user:pass@]host:port/db".
    std::string_view form;
    // What it is, in an error that says an option does not apply: "a MySQL queue table".
    std::string_view what;
    BackendTraits traits;
    // What the queue name means there ("the MySQL queue table, created when missing"); empty: none.
    std::string_view queue_meaning = {};
};

class Backend {
public:
    explicit Backend(const BackendDescription& description) : description_(description) {}
    virtual ~Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    std::string_view form() const { return description_.form; }
    std::string_view what() const { return description_.what; }
    BackendTraits traits() const { return description_.traits; }
    std::string_view queue_meaning() const { return description_.queue_meaning; }
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
    // The jobs kept there, for `rowpump job`; connects at once. `state_prefix`: where a Redis store keeps
    // them. Only called when traits().keeps_jobs.
    virtual std::unique_ptr<JobAdmin> open_job_admin(const SinkSpec& spec, const std::string& state_prefix) const;

    // The consumer side: only called when traits().takes_queue (the defaults throw UsageError).
    // `source` with its connection typed: the URL read (a password from the environment when it has none),
    // connecting to nothing. Throws UsageError for a malformed URL or options of another backend.
    virtual QueueSource parse_source(const QueueSource& source) const;
    // Refuses what this backend cannot consume with (UsageError), before anything connects.
    virtual void check_consumers(const ConsumerOptions&) const {}
    // Worker `worker`'s consumer, on its own connection; options.source is typed (parse_source).
    virtual std::unique_ptr<QueueConsumer> open_consumer(const ConsumerOptions& options, std::size_t worker) const;
    // The maintenance of a run whose workers are `consumers` (their QueueConsumer::name()).
    virtual std::unique_ptr<QueueMaintainer> open_maintainer(const ConsumerOptions& options,
                                                             std::vector<std::string> consumers) const;
    // The queue commands' one-step maintenance; connects at each call.
    virtual std::unique_ptr<QueueAdmin> open_admin(const ConsumerOptions& options) const;

private:
    BackendDescription description_;
};

// The one instance of backend B, which the registry hands out by reference (and tests compare by address).
template <class B>
const Backend& the_backend() {
    static const B backend;
    return backend;
}

}  // namespace rowpump
