#include "backend/redis_cluster/cluster_target.hpp"

namespace rowpump {

ClusterTarget cluster_target(const SinkSpec& spec) {
    ClusterTarget target{.cluster = redis::ClusterOptions::from_url(spec.uri),
                         .keys = redis_queue_keys(spec),
                         .wait = redis_replica_wait(spec),
                         .shards = spec.redis_only.shards};
    for (RedisOptions& seed : target.cluster.seeds) {
        static_cast<ServerTimeouts&>(seed) = spec.timeouts;
        seed.stop = spec.stop;
    }
    return target;
}

}  // namespace rowpump
