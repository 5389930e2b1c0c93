#pragma once
// The consumer side of one queue on a Redis Cluster, following its slot while it runs: the Redis backend's
// consumer, maintainer or admin, opened on the node that owns the queue's slot, and opened again on the new
// owner when a call is answered MOVED (a finished migration, a failover). An ASK (a migration under way:
// some of the queue's keys are on the importing node already) is waited out within the retry budget, as
// the job store waits it out: the consumers' scripts move tasks between several keys of the slot, which
// neither node can run while the keys are split between them. A consumer opened again keeps its name, and
// takes what its processing list holds as its own again: a task in flight when the slot moved may be
// handed out twice (at-least-once, as a lost connection gives).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "redis/cluster_client.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// `client` is shared by the objects of one thread (a worker's consumers of every shard); `worker`:
// the consumer is named <consumer>:<worker> (else <host>:<pid>:<n>); nullptr: options.consumer as it is.
std::unique_ptr<QueueConsumer> open_following_consumer(std::shared_ptr<redis::ClusterClient> client,
                                                       const ConsumerOptions& options, const std::size_t* worker);
std::unique_ptr<QueueMaintainer> open_following_maintainer(std::shared_ptr<redis::ClusterClient> client,
                                                           const ConsumerOptions& options,
                                                           std::vector<std::string> consumers);
std::unique_ptr<QueueAdmin> open_following_admin(std::shared_ptr<redis::ClusterClient> client,
                                                 const ConsumerOptions& options);

}  // namespace rowpump
