#pragma once
// The consumer side of a Redis stream, as its Backend hands it out: a worker's consumer in the source's
// consumer group, the maintenance beside the workers (nothing is due: each consumer takes over idle entries
// itself), and the queue commands' one-step maintenance.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "queue/queue_admin.hpp"
#include "queue/queue_consumer.hpp"
#include "queue/queue_maintainer.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump {

// Refuses the lists' options (priority lists, --return-to) and a claim timeout of 0, before anything
// connects. Throws UsageError.
void check_stream_consumers(const ConsumerOptions& options);
std::unique_ptr<QueueConsumer> open_stream_consumer(const ConsumerOptions& options, std::size_t worker);
std::unique_ptr<QueueMaintainer> open_stream_maintainer(const ConsumerOptions& options,
                                                        std::vector<std::string> consumers);
std::unique_ptr<QueueAdmin> open_stream_admin(const ConsumerOptions& options);

}  // namespace rowpump
