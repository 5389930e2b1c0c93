#include "backend/redis_streams/stream_page_writer.hpp"

#include <algorithm>

#include "backend/redis/redis_page_pipeline.hpp"
#include "backend/redis_streams/stream_scripts.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

void StreamPageWriter::check_key_types(Connection& connection) const {
    const std::string type = connection.command({"TYPE", key()}).text;
    if (type == "stream" || type == "none") return;
    throw config::OptionError({"key " + key() + " is a " + type + ", expected a stream (" + "--push xadd" +
                               "): choose another ", config::OptionId::queue});
}

bool StreamPageWriter::write(Connection& connection, const std::vector<Message>& batch, DelayedTag,
                             const CheckpointMove* fence) {
    for (const Message& message : batch)
        if (message.due_ms > 0)
            throw UsageError("a stream has no due times, and a row is delayed: drop --delay and --due-column, or "
                             "push to lists (--push rpush)");
    PagePipeline pipeline(connection, fence != nullptr);
    for (const Message& message : batch) pipeline.send(commands_.xadd(message.payload));
    if (!fence) {
        pipeline.finish();
        return true;
    }
    // The lists' script checks lists and a sorted set; this one the stream, with the same arguments.
    std::vector<std::string_view> move{"EVAL", stream_scripts::move_checkpoint, "2", fence->range_key, key()};
    move.insert(move.end(), fence->arguments.begin(), fence->arguments.end());
    const Reply result = pipeline.commit(move);
    if (result.is_nil()) return false;
    // Errors inside EXEC come back as nil elements: a refused XADD, or the checkpoint script's refusal. An
    // XADD's reply is its entry's id, the script's 1.
    const auto& elements = result.elements;
    const bool all_applied =
        elements.size() == batch.size() + 1 &&
        std::all_of(elements.begin(), elements.end() - 1, [](const Reply& reply) { return reply.type == Reply::Type::string; }) &&
        elements.back().type == Reply::Type::integer;
    if (!all_applied)
        throw QueueError("a page for " + std::string(fence->range_key) + " was refused inside its transaction (is " +
                             key() + " still a stream?); its checkpoint did not move, some of its rows may be in "
                             "the stream: fix the key and resume (those rows then arrive again)",
                         false);
    return true;
}

std::uint64_t StreamPageWriter::ready_count(Connection& connection) const {
    const Reply length = connection.command({"XLEN", key()});
    if (length.integer == 0) return 0;
    // XINFO GROUPS: each group's "lag", the entries not yet delivered to it (Redis 7). The stream keeps what
    // its groups have read, so its length alone would only grow.
    const Reply groups = connection.command({"XINFO", "GROUPS", key()});
    if (groups.elements.empty()) return static_cast<std::uint64_t>(length.integer);
    std::uint64_t most = 0;
    for (const Reply& group : groups.elements) {
        for (std::size_t i = 0; i + 1 < group.elements.size(); i += 2) {
            if (group.elements[i].text != "lag") continue;
            const Reply& lag = group.elements[i + 1];
            // nil: Redis cannot tell (entries were deleted); the whole length is the safe answer.
            most = std::max<std::uint64_t>(most, lag.is_nil() ? static_cast<std::uint64_t>(length.integer)
                                                              : static_cast<std::uint64_t>(lag.integer));
        }
    }
    return most;
}

}  // namespace rowpump::redis
