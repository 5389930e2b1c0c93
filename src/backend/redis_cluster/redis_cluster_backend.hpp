#pragma once
// A queue on a Redis Cluster: redis-cluster://[user:pass@]host:port[,host:port...]/. The same keys as on one
// Redis (backend/redis), all in the hash slot of the queue's tag, on the node that owns that slot.
#include "backend/backend.hpp"

namespace rowpump {

const Backend& redis_cluster_backend();

}  // namespace rowpump
