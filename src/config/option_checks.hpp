#pragma once
// The rules between options, written once for the command line, the job file and the library's own
// check of a JobSpec. Each throws an OptionError naming the options by the schema. What a rule needs to
// know of the sink (is it Redis, a file) comes in as a plain value: the sink's kind is the sink's business.
#include <string>
#include <vector>

#include "config/option_error.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/job.hpp"

namespace rowpump::config {

// --push given with a worker format, whose clients decide the push side themselves.
void check_push_applies(Format format, bool push_given);

// The options that name rowpump's own Redis keys (--list-key, --delayed-key, --delay-score, and a sink's
// --delayed-members) that differ from their defaults.
std::vector<OptionId> redis_name_options_given(const RedisKeyNames& names);
std::vector<OptionId> redis_name_options_given(const SinkSpec& sink);
// Those options with a sink that has no Redis keys (its URI is shown, redacted).
void check_redis_names_apply(const SinkSpec& sink, bool redis_sink);
// Those of `given` with a queue (`uri`, shown redacted) that is not in Redis: the queue commands' check.
void check_redis_names_apply(const std::vector<OptionId>& given, const std::string& uri, bool redis_queue);
// Those options with a worker format, which writes its framework's keys, not rowpump's.
void check_redis_names_fit_format(const SinkSpec& sink, const std::string& format);
void check_redis_names_fit_format(const std::vector<OptionId>& given, const std::string& format);

// Priority routing with a worker format (`format` names it), whose workers choose queues by name.
void check_priority_fits_format(const std::string& format, bool priority_routing);

// A state prefix names the keys of a job's state: not without a job id.
void check_state_prefix_applies(const JobSpec& spec);

// --overwrite replaces a file:PATH sink and nothing else.
void check_overwrite_applies(const SinkSpec& sink, bool file_sink);

// --redis-wait waits for the replicas of one Redis server (redis://, rediss://, redis+unix://,
// redis-sentinel://): not with another sink.
void check_redis_wait_applies(const SinkSpec& sink, bool waits_for_replicas);
// --shards N (0: not given) applies to a Redis Cluster only (`spreads_shards`, the backend's trait).
void check_shards_apply(std::size_t shards, const std::string& uri, bool spreads_shards);

// A lag query runs on the replicas: not without them.
void check_lag_query_applies(const ThrottleSpec& throttle);
// --push xadd writes a stream, which has no due times: delayed rows are refused before anything runs.
void check_stream_route(const JobSpec& spec);

// --celery-expires counts from enqueueing: a fixed --delay as long or longer would have every task revoked
// when it comes due.
void check_expiry_after_delay(const JobSpec& spec);

// --resume, --follow, --consistent-snapshot and --job-id, which exclude or need each other.
void check_job_options(const JobSpec& spec);

}  // namespace rowpump::config
