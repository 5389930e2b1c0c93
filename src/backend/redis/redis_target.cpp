#include "backend/redis/redis_target.hpp"

#include "backend/sink_target.hpp"
#include "config/option_checks.hpp"

namespace rowpump {

RedisQueueKeys redis_queue_keys(const SinkSpec& spec) {
    RedisQueueKeys keys;
    static_cast<RedisKeyNames&>(keys) = spec.redis_only;
    keys.queue = spec.queue;
    keys.layout = spec.layout;
    keys.push = spec.push;
    keys.priority_lists = spec.priority_lists;
    keys.delayed_members = spec.redis_only.delayed_members;
    keys.bullmq_prefix = spec.redis_only.bullmq_prefix;
    keys.celery_priority = spec.redis_only.celery_priority;
    keys.celery_priority_per_row = spec.redis_only.celery_priority_per_row;
    keys.names_given = config::redis_name_options_given(spec);
    return keys;
}

RedisReplicaWait redis_replica_wait(const SinkSpec& spec) {
    return {.replicas = spec.redis_only.wait_replicas, .timeout = spec.redis_only.wait_timeout};
}

RedisTarget redis_target(const SinkSpec& spec) {
    return {.connection = sink_redis_options(spec), .keys = redis_queue_keys(spec), .wait = redis_replica_wait(spec)};
}

}  // namespace rowpump
