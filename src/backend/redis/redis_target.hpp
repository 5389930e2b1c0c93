#pragma once
// A Redis sink's target, read from its SinkSpec once: the server's connection options, the queue's keys and
// how a page is pushed into them, and the WAIT after each page. The sink, the page writer, the push plan,
// the WAIT, the job store and the Redis Cluster backend take these (or the part they need), never the spec:
// this file is the one place that reads a spec's Redis fields and its URI.
#include <chrono>
#include <string>
#include <vector>

#include "config/option_error.hpp"
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

// The queue's keys and how a page is pushed into them: what the push plan reads. Not checked here: the
// push plan refuses bad names (redis_push_plan.hpp). The key templates and score unit (RedisKeyNames)
// are the ones its consumers are given (RedisQueueOptions).
struct RedisQueueKeys : RedisKeyNames {
    std::string queue;
    QueueLayout layout = QueueLayout::rowpump;
    PushSide push = PushSide::right;
    std::vector<std::string> priority_lists;  // highest first; empty: the queue's one ready list
    DelayedMembers delayed_members = DelayedMembers::tagged;
    std::string bullmq_prefix = "bull";  // the bullmq layout's keys: <prefix>:<queue>:wait ...
    unsigned celery_priority = 0;        // the celery layout's list (celery_priority_list)
    bool celery_priority_per_row = false;  // each message's own (Message::priority_level, 0..9): every step's list
    // The options among those four that differ from their defaults: a worker format refuses them.
    std::vector<config::OptionId> names_given;
};

// After each page, WAIT until `replicas` replicas have it, for at most `timeout` (0 replicas: no WAIT).
struct RedisReplicaWait {
    unsigned replicas = 0;
    std::chrono::milliseconds timeout{1000};
};

struct RedisTarget {
    RedisOptions connection;  // with the spec's timeouts, retry budget and stop flag
    RedisQueueKeys keys;
    RedisReplicaWait wait;
};

// The queue's keys alone: reads no URI (a Redis Cluster's connection is not one server's).
RedisQueueKeys redis_queue_keys(const SinkSpec& spec);
RedisReplicaWait redis_replica_wait(const SinkSpec& spec);
// Throws UsageError for a malformed URI; nothing connects.
RedisTarget redis_target(const SinkSpec& spec);

}  // namespace rowpump
