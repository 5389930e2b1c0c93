// BullMQ jobs written one script a page (bullmq_page_writer.hpp), by the Redis backend's sink and job
// store over BullMQ's page writer, as the stream's are over its own.
#include "backend/redis/bullmq_page_writer.hpp"
#include "backend/redis/redis_writers.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_bullmq_sink(const RedisTarget& target) {
    auto writer = std::make_unique<redis::BullmqPageWriter>(target.keys);
    std::string destination = "BullMQ queue " + writer->job_prefix();
    destination.pop_back();
    return make_redis_sink(target, std::move(writer), std::move(destination));
}

std::unique_ptr<JobStore> open_bullmq_job_store(const RedisTarget& target, const JobDefinition& definition) {
    return open_redis_job_store(target, definition,
                                [keys = target.keys] { return std::make_unique<redis::BullmqPageWriter>(keys); });
}

}  // namespace rowpump
