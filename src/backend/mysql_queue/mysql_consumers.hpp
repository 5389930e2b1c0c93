#pragma once
// The consumer side of the MySQL queue table, as its Backend hands it out: a worker's consumer, the
// reaper that runs beside the workers, and the queue commands' one-step maintenance.
#include <memory>

#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// The source's typed options, else its URL read (a password from the environment). Throws UsageError.
MySqlOptions consumer_mysql_options(const QueueSource& source);
// The queue table's options of MySqlQueue: the source's table, the retry policy, claim mode, max crashes.
MySqlQueueOptions consumer_queue_options(const ConsumerOptions& options);

// Renews its claims once a third of options.claim_timeout has passed since the last renewal.
std::unique_ptr<QueueConsumer> open_mysql_consumer(const ConsumerOptions& options);
// Reaps every options.reap_interval (0: never) the claims older than options.claim_timeout or whose
// owner is gone.
std::unique_ptr<QueueMaintainer> open_mysql_maintainer(const ConsumerOptions& options);
std::unique_ptr<QueueAdmin> open_mysql_admin(const ConsumerOptions& options);

}  // namespace rowpump
