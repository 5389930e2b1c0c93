#pragma once
// The one way a page of messages enters a queue's Redis keys, for the plain sink and for a job's ledger
// alike: the push plan's commands, pipelined, their replies read whenever a few MB are buffered. A fenced
// write is the same pipeline inside MULTI/EXEC with the script that moves the range's checkpoint, so the
// rows and the checkpoint are applied together or not at all; the plain write is that without the fence.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_writer.hpp"
#include "redis/connection.hpp"

namespace rowpump::redis {

// A fenced page's CheckpointMove (redis_queue_writer.hpp) gets KEYS = its range, the queue's ready lists,
// its delayed set.
class PageWriter final : public QueueWriter {
public:
    // Throws UsageError for bad names (PushPlan), before anything connects.
    explicit PageWriter(const RedisQueueKeys& keys) : plan_(keys) {}

    // Pushes `batch`, each delayed message tagged from `first_tag` on (PushPlan::plan). With `fence`, in one
    // MULTI/EXEC with its checkpoint move: false when the EXEC was aborted (a WATCHed key changed), and
    // QueueError when a command inside it was refused. Without, always true; a lost connection midway
    // leaves the page partly pushed (the caller's retry pushes it again: at-least-once).
    bool write(Connection& connection, const std::vector<Message>& batch, DelayedTag first_tag,
               const CheckpointMove* fence = nullptr) override;

    // The ready tasks waiting in the queue's lists (LLEN of each). Not retried: the caller's retrying() is.
    std::uint64_t ready_count(Connection& connection) const override;
    void check_key_types(Connection& connection) const override { plan_.check_key_types(connection); }

    const PushPlan& plan() const noexcept { return plan_; }

private:
    PushPlan plan_;
};

}  // namespace rowpump::redis
