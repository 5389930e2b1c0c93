#pragma once
// The consumer side of a Redis queue, as its Backend hands it out: a worker's consumer, the maintenance
// that runs beside the workers, and the queue commands' one-step maintenance. Each takes the queue's
// consumer target, read from the ConsumerOptions once.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// A Redis queue as its consumers see it: the server, and RedisQueue's options, whose key names and score
// unit (RedisKeyNames) are the ones a producer's RedisQueueKeys carries (redis_target.hpp).
struct RedisConsumerTarget {
    RedisOptions connection;  // the source's, with the run's stop flag unless it has its own
    RedisQueueOptions queue;  // the options' consumer name as it is (empty: RedisQueue picks one)
    std::chrono::milliseconds heartbeat_timeout;
    std::chrono::milliseconds reap_interval;

    // Worker `worker`'s options: named <consumer>:<worker> when the options name a consumer.
    RedisQueueOptions for_worker(std::size_t worker) const;
};

// The source's typed options, else its URL read (a password from the environment). Throws UsageError.
RedisOptions source_redis_options(const QueueSource& source);
// Throws UsageError for a malformed URL; nothing connects.
RedisConsumerTarget redis_consumer_target(const ConsumerOptions& options);

std::unique_ptr<QueueConsumer> open_redis_consumer(const RedisConsumerTarget& target, std::size_t worker);
// A consumer named as the target names it (no worker suffix; empty: <host>:<pid>:<n>): a worker of a
// sharded queue takes one name on every shard, so that one heartbeat covers them all.
std::unique_ptr<QueueConsumer> open_named_redis_consumer(const RedisConsumerTarget& target);
// Beats for `consumers` three times per heartbeat_timeout, promotes every 200 ms, and reaps every
// reap_interval (0: never) the consumers whose beat is older than heartbeat_timeout.
std::unique_ptr<QueueMaintainer> open_redis_maintainer(const RedisConsumerTarget& target,
                                                       std::vector<std::string> consumers);
// The queue commands consume nothing: the target's consumer name is not used.
std::unique_ptr<QueueAdmin> open_redis_admin(const RedisConsumerTarget& target);

// A backend whose consumers, maintenance and queue commands are the ones above, on the target that
// consumer_target() reads: the Redis backend's server, or the node of a Redis Cluster that owns the queue.
class RedisConsumersBackend : public Backend {
public:
    using Backend::Backend;

    std::unique_ptr<QueueConsumer> open_consumer(const ConsumerOptions& options, std::size_t worker) const override {
        return open_redis_consumer(consumer_target(options), worker);
    }
    std::unique_ptr<QueueMaintainer> open_maintainer(const ConsumerOptions& options,
                                                     std::vector<std::string> consumers) const override {
        return open_redis_maintainer(consumer_target(options), std::move(consumers));
    }
    std::unique_ptr<QueueAdmin> open_admin(const ConsumerOptions& options) const override {
        return open_redis_admin(consumer_target(options));
    }

protected:
    virtual RedisConsumerTarget consumer_target(const ConsumerOptions& options) const = 0;
};

}  // namespace rowpump
