#include "backend/redis/redis_page_writer.hpp"

#include <algorithm>

#include "backend/redis/redis_page_pipeline.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

bool PageWriter::write(Connection& connection, const std::vector<Message>& batch, DelayedTag first_tag,
                       const CheckpointMove* fence) {
    plan_.plan(batch, first_tag);
    PagePipeline pipeline(connection, fence != nullptr);
    for (std::size_t i = 0; i < plan_.commands(); ++i) pipeline.send(plan_.command(i));
    if (!fence) {
        pipeline.finish();
        return true;
    }
    const std::string key_count = std::to_string(plan_.ready_keys().size() + 2);
    std::vector<std::string_view> move{"EVAL", fence->script, key_count, fence->range_key};
    move.insert(move.end(), plan_.ready_keys().begin(), plan_.ready_keys().end());
    move.push_back(plan_.delayed_key());
    move.insert(move.end(), fence->arguments.begin(), fence->arguments.end());
    const Reply result = pipeline.commit(move);
    if (result.is_nil()) return false;
    // Errors inside EXEC come back as its elements: a failed push, or the checkpoint script's refusal.
    const bool all_applied = result.elements.size() == plan_.commands() + 1 &&
                             std::all_of(result.elements.begin(), result.elements.end(),
                                         [](const Reply& reply) { return reply.type == Reply::Type::integer; });
    if (!all_applied)
        throw QueueError("a page for " + std::string(fence->range_key) + " was refused inside its transaction (a "
                         "queue key of the wrong type?); its checkpoint did not move, some of its rows may be in "
                         "the queue: fix the key and resume (those rows then arrive again)",
                         false);
    return true;
}

std::uint64_t PageWriter::ready_count(Connection& connection) const {
    for (const std::string& key : plan_.ready_keys()) connection.append({"LLEN", key});
    std::uint64_t total = 0;
    for (const Reply& reply : connection.read_replies(plan_.ready_keys().size()))
        total += static_cast<std::uint64_t>(reply.integer);
    return total;
}

}  // namespace rowpump::redis
