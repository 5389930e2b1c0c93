#include "backend/redis_cluster/cluster_owner.hpp"

#include "backend/redis/redis_consumers.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"

namespace rowpump {

redis::ClusterOptions source_cluster(const ConsumerOptions& options) {
    redis::ClusterOptions cluster = redis::ClusterOptions::from_url(options.source.url);
    const RedisOptions typed = redis_consumer_target(options).connection;
    for (RedisOptions& seed : cluster.seeds) {
        static_cast<ServerTimeouts&>(seed) = static_cast<const ServerTimeouts&>(typed);
        seed.stop = typed.stop;
    }
    return cluster;
}

std::uint16_t consumer_slot(const ConsumerOptions& options) {
    const RedisQueueOptions queue = redis_consumer_target(options).queue;
    std::vector<std::string> keys;
    for (const std::string& level : queue.priority_lists)
        keys.push_back(redis::list_key(queue.list_key, queue.queue, level));
    keys.push_back(redis::delayed_key(queue.delayed_key, queue.queue));
    return redis::consumer_queue_slot(queue.queue, keys);
}

ConsumerOptions on_slot_owner(const ConsumerOptions& options, const redis::ClusterClient& client) {
    ConsumerOptions owned = options;
    owned.source.connection = client.owner_options(consumer_slot(options));
    return owned;
}

}  // namespace rowpump
