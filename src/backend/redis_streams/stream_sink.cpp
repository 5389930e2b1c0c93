// A Redis stream written with pipelined XADDs, one entry a row (stream_commands.hpp), by the Redis
// backend's sink and job store over the stream's page writer.
#include "backend/redis_streams/stream_page_writer.hpp"
#include "backend/redis_streams/stream_writers.hpp"

namespace rowpump {

std::unique_ptr<Sink> make_stream_sink(const StreamTarget& target) {
    auto writer = std::make_unique<redis::StreamPageWriter>(target);
    std::string destination = "stream " + writer->key();
    return make_redis_sink(target.redis, std::move(writer), std::move(destination));
}

std::unique_ptr<JobStore> open_stream_job_store(const StreamTarget& target, const JobDefinition& definition) {
    return open_redis_job_store(target.redis, definition,
                                [target] { return std::make_unique<redis::StreamPageWriter>(target); });
}

}  // namespace rowpump
