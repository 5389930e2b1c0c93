#pragma once
// What the Redis backend opens for a sink spec; both connect with the spec's timeouts and stop flag.
#include <memory>

#include "checkpoint/job_store.hpp"
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_redis_sink(const SinkSpec& spec, RedisOptions options);
std::unique_ptr<JobStore> open_redis_job_store(const SinkSpec& sink, const JobDefinition& definition);

}  // namespace rowpump
