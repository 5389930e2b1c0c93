#pragma once
// What the Redis Cluster backend opens for a sink spec, and the cluster options it connects with: the
// URL's nodes with the spec's timeouts, retry budget and stop flag.
#include <memory>

#include "checkpoint/job_store.hpp"
#include "redis/cluster_options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

redis::ClusterOptions sink_cluster_options(const SinkSpec& spec);
std::unique_ptr<Sink> make_cluster_sink(const SinkSpec& spec);
// `definition` with its state prefix as cluster_state_prefix() chose it.
std::unique_ptr<JobStore> open_cluster_job_store(const SinkSpec& spec, const JobDefinition& definition);

}  // namespace rowpump
