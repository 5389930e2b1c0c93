// The registry of queue backends, keyed by URI scheme: the one place that knows which backends exist.
#include <array>
#include <string_view>
#include <variant>
#include <vector>

#include "backend/registry/registry.hpp"

#include "backend/backend.hpp"
#include "backend/file/file_backend.hpp"
#include "backend/mysql_queue/mysql_queue_backend.hpp"
#include "backend/redis/redis_backend.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis_cluster/redis_cluster_backend.hpp"
#include "backend/redis_streams/redis_streams_backend.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

struct Scheme {
    std::string_view prefix;  // what a URI starts with ("redis://"); "stdout" is a whole URI
    const Backend& (*backend)();
    bool listed;  // named in the line of accepted forms (mariadb:// is mysql://'s other spelling, rediss:// is
                  // in redis://'s form)
};

// One line a scheme, in the order the accepted forms are listed.
const std::array<Scheme, 10> schemes{{
    {"stdout", stdout_backend, true},
    {"file:", file_backend, true},
    {"redis://", redis_backend, true},
    // The Redis backend's other ways to reach its server; its form names them.
    {"rediss://", redis_backend, false},          // TLS
    {"redis+unix://", redis_backend, false},      // a unix socket
    {"redis-sentinel://", redis_backend, false},  // the master that sentinels name
    {"redis-cluster://", redis_cluster_backend, true},
    {"rediss-cluster://", redis_cluster_backend, false},  // over TLS
    {"mysql://", mysql_queue_backend, true},
    {"mariadb://", mysql_queue_backend, false},
}};

bool matches(const Scheme& scheme, const std::string& uri) {
    return scheme.prefix == "stdout" ? uri == "stdout" : uri.starts_with(scheme.prefix);
}

std::string accepted_forms(TargetRole role) {
    std::vector<std::string_view> forms;
    for (const Scheme& scheme : schemes) {
        const Backend& backend = scheme.backend();
        if (scheme.listed && (role == TargetRole::sink || backend.traits().takes_queue)) forms.push_back(backend.form());
    }
    std::string text = "expected ";
    for (std::size_t i = 0; i < forms.size(); ++i)
        text += std::string(i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + std::string(forms[i]);
    if (role == TargetRole::queue_source) text += " (neither stdout nor a file holds a queue)";
    return text;
}

}  // namespace

const Backend& backend_for_uri(const std::string& uri, TargetRole role) {
    for (const Scheme& scheme : schemes) {
        if (!matches(scheme, uri)) continue;
        const Backend& backend = scheme.backend();
        if (role == TargetRole::sink || backend.traits().takes_queue) return backend;
        break;
    }
    throw UsageError("unsupported " + std::string(role == TargetRole::sink ? "sink" : "queue source") + " '" +
                     redact_url(uri) + "': " + accepted_forms(role));
}

namespace {

// A Redis stream shares the Redis schemes with the lists: the push mode (XADD), or a consumer group on the
// consumer side, picks it. On another backend they are refused.
const Backend& stream_or(const Backend& backend, bool stream, const std::string& uri, std::string_view asked) {
    if (!stream) return backend;
    if (&backend == &redis_backend()) return redis_streams_backend();
    throw UsageError(std::string(asked) + " reads or writes a Redis stream, and " + redact_url(uri) + " is " +
                     std::string(backend.what()) +
                     ": use a redis:// source or sink (or rediss://, redis+unix://, redis-sentinel://)");
}

}  // namespace

const Backend& backend_for(const SinkSpec& spec) {
    if (spec.redis_target && spec.mysql_target)
        throw UsageError("the sink names both a Redis and a MySQL target: give one of them");
    const Backend& backend = spec.redis_target   ? redis_backend()
                             : spec.mysql_target ? mysql_queue_backend()
                                                 : backend_for_uri(spec.uri, TargetRole::sink);
    return stream_or(backend, spec.push == PushSide::xadd, spec.uri, "--push xadd");
}

// A URL names its backend by its scheme (a Redis Cluster's source is typed with its first node's options);
// a source with no URL by the type of its connection.
const Backend& backend_for(const QueueSource& source) {
    const Backend& backend = !source.url.empty() ? backend_for_uri(source.url, TargetRole::queue_source)
                             : std::holds_alternative<RedisOptions>(source.connection) ? redis_backend()
                             : std::holds_alternative<MySqlOptions>(source.connection)
                                 ? mysql_queue_backend()
                                 : backend_for_uri(source.url, TargetRole::queue_source);
    return stream_or(backend, !source.stream_group.empty(), source.url, "--group");
}

QueueSource typed_source(const QueueSource& source) { return backend_for(source).parse_source(source); }

namespace {

[[noreturn]] void holds_no_queue(const Backend& backend) {
    throw UsageError(std::string(backend.what()) + " holds no queue to consume from");
}

}  // namespace

QueueSource Backend::parse_source(const QueueSource&) const { holds_no_queue(*this); }

std::unique_ptr<QueueConsumer> Backend::open_consumer(const ConsumerOptions&, std::size_t) const {
    holds_no_queue(*this);
}

std::unique_ptr<QueueMaintainer> Backend::open_maintainer(const ConsumerOptions&, std::vector<std::string>) const {
    holds_no_queue(*this);
}

std::unique_ptr<QueueAdmin> Backend::open_admin(const ConsumerOptions&) const { holds_no_queue(*this); }

std::unique_ptr<JobStore> Backend::open_job_store(const SinkSpec&, const JobDefinition&) const {
    throw UsageError("a job id needs a redis:// or mysql:// sink: the job's checkpoints are stored beside the "
                     "queue, in the same atomic step as the rows");
}

std::unique_ptr<JobAdmin> Backend::open_job_admin(const SinkSpec&, const std::string&) const {
    throw UsageError("jobs are kept beside a redis://, redis-cluster:// or mysql:// queue: give --sink one of those");
}

namespace {

// The queue is checked before the target is parsed in full, and before anything connects.
const Backend& backend_with_queue(const SinkSpec& spec) {
    const Backend& backend = backend_for(spec);
    if (backend.traits().takes_queue && spec.queue.empty())
        throw UsageError("no queue given for " + redact_url(spec.uri) + ": pass --queue NAME (" +
                         std::string(backend.queue_meaning()) + ")");
    return backend;
}

}  // namespace

std::unique_ptr<Sink> make_sink(const SinkSpec& spec) { return backend_with_queue(spec).make_sink(spec); }

void check_sink(const SinkSpec& spec) { backend_with_queue(spec).check_sink(spec); }

std::unique_ptr<JobStore> open_job_store(const SinkSpec& sink, const JobDefinition& definition) {
    if (definition.job_id.empty() || definition.job_id.size() > 191)
        throw UsageError("a job id must be 1 to 191 characters, got '" + definition.job_id + "'");
    const Backend& backend = backend_for(sink);
    if (!backend.traits().redis_keys && definition.state_prefix != redis::default_state_prefix)
        throw UsageError("a state prefix names Redis keys, and " + redact_url(sink.uri) +
                         " keeps job state in tables: drop --state-prefix, or write to a redis:// sink");
    if (!backend.traits().keeps_jobs) return backend.Backend::open_job_store(sink, definition);
    return backend.open_job_store(sink, definition);
}

std::unique_ptr<JobAdmin> open_job_admin(const SinkSpec& sink, const std::string& state_prefix) {
    const Backend& backend = backend_for(sink);
    if (!backend.traits().keeps_jobs) return backend.Backend::open_job_admin(sink, state_prefix);
    if (!backend.traits().redis_keys && state_prefix != redis::default_state_prefix)
        throw UsageError("a state prefix names Redis keys, and " + redact_url(sink.uri) +
                         " keeps job state in tables: drop --state-prefix");
    return backend.open_job_admin(sink, state_prefix);
}

}  // namespace rowpump
