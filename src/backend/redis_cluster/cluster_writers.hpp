#pragma once
// What the Redis Cluster backend opens for a target (cluster_target.hpp).
#include <memory>

#include "checkpoint/job_store.hpp"
#include "backend/redis_cluster/cluster_target.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_cluster_sink(ClusterTarget target);
// `definition` with its state prefix as cluster_state_prefix() chose it.
std::unique_ptr<JobStore> open_cluster_job_store(const ClusterTarget& target, const JobDefinition& definition);

}  // namespace rowpump
