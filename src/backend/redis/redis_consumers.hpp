#pragma once
// The consumer side of a Redis queue, as its Backend hands it out: a worker's consumer, the maintenance
// that runs beside the workers, and the queue commands' one-step maintenance.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// The source's typed options, else its URL read (a password from the environment). Throws UsageError.
RedisOptions source_redis_options(const QueueSource& source);
// With the run's stop flag unless they have their own: a stop ends a wait on a server that stopped answering.
RedisOptions consumer_redis_options(const ConsumerOptions& options);
// RedisQueue's options for worker `worker` (its name <consumer>:<worker> when the options name one), or
// for the maintenance and the queue commands (nullptr: the options' consumer name, as it is).
RedisQueueOptions consumer_queue_options(const ConsumerOptions& options, const std::size_t* worker);

std::unique_ptr<QueueConsumer> open_redis_consumer(const ConsumerOptions& options, std::size_t worker);
// A consumer named options.consumer as it is (no worker suffix; empty: <host>:<pid>:<n>): a worker of a
// sharded queue takes one name on every shard, so that one heartbeat covers them all.
std::unique_ptr<QueueConsumer> open_named_redis_consumer(const ConsumerOptions& options);
// Beats for `consumers` three times per options.heartbeat_timeout, promotes every 200 ms, and reaps every
// options.reap_interval (0: never) the consumers whose beat is older than options.heartbeat_timeout.
std::unique_ptr<QueueMaintainer> open_redis_maintainer(const ConsumerOptions& options,
                                                       std::vector<std::string> consumers);
std::unique_ptr<QueueAdmin> open_redis_admin(const ConsumerOptions& options);

}  // namespace rowpump
