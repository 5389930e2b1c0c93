#pragma once
// The one way a page enters a stream, for the plain sink and for a job's ledger alike (as the lists'
// PageWriter): one XADD a message, pipelined, replies read whenever a few MB are buffered. Fenced, the same
// XADDs go in one MULTI/EXEC with the checkpoint's move (stream_scripts::move_checkpoint): the entries and
// the checkpoint are applied together or not at all. Plain XADDs, not a Lua script that runs them: Redis
// spent a quarter less CPU on them than on the same entries passed to a script as its arguments
// (bench/results/streams_floor.md).
#include <cstdint>
#include <vector>

#include "backend/redis/redis_queue_writer.hpp"
#include "backend/redis_streams/stream_commands.hpp"
#include "backend/redis_streams/stream_target.hpp"

namespace rowpump::redis {

class StreamPageWriter final : public QueueWriter {
public:
    explicit StreamPageWriter(const StreamTarget& target) : commands_(target.redis.keys.queue, target.maxlen) {}

    // Throws UsageError (exit 2) when the key holds something other than a stream.
    void check_key_types(Connection& connection) const override;
    // A delayed message is refused (UsageError): a stream has no due times. `first_tag` is not used.
    bool write(Connection& connection, const std::vector<Message>& batch, DelayedTag first_tag,
               const CheckpointMove* fence) override;
    // Entries not yet delivered to the slowest consumer group (its lag); with no group, the stream's length.
    std::uint64_t ready_count(Connection& connection) const override;

    const std::string& key() const noexcept { return commands_.key(); }

private:
    StreamCommands commands_;
};

}  // namespace rowpump::redis
