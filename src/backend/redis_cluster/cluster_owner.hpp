#pragma once
// Where the consumer side of a cluster queue connects: the node that owns the queue's slot, found in the
// cluster's slot map. The consumers, their maintenance and the queue commands are the Redis backend's,
// pointed at that node.
#include <cstdint>

#include "redis/cluster_client.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// The cluster's seeds, with the timeouts, retry budget and stop flag of the source's typed connection.
redis::ClusterOptions source_cluster(const ConsumerOptions& options);
// The slot of every key the consumers of `options`' queue use. Throws UsageError when they are not in one.
std::uint16_t consumer_slot(const ConsumerOptions& options);
// `options` with its connection pointed at the owner of its queue's slot, as `client`'s map says.
ConsumerOptions on_slot_owner(const ConsumerOptions& options, const redis::ClusterClient& client);

}  // namespace rowpump
