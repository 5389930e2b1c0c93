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
#include "redis/connection.hpp"

namespace rowpump::redis {

// What a fenced page commits with its rows: `script`, run inside the page's MULTI after its pushes, with
// KEYS = `range_key`, the queue's ready lists, its delayed set; ARGV = `arguments`. The caller WATCHes
// what the fence rests on before write().
struct CheckpointMove {
    std::string_view script;
    std::string_view range_key;
    std::vector<std::string> arguments;
};

class PageWriter {
public:
    // Throws UsageError for bad names (PushPlan), before anything connects.
    explicit PageWriter(const RedisQueueKeys& keys) : plan_(keys) {}

    // Pushes `batch`, each delayed message tagged from `first_tag` on (PushPlan::plan). With `fence`, in one
    // MULTI/EXEC with its checkpoint move: false when the EXEC was aborted (a WATCHed key changed), and
    // QueueError when a command inside it was refused. Without, always true; a lost connection midway
    // leaves the page partly pushed (the caller's retry pushes it again: at-least-once).
    bool write(Connection& connection, const std::vector<Message>& batch, DelayedTag first_tag,
               const CheckpointMove* fence = nullptr);

    // The ready tasks waiting in the queue's lists (LLEN of each). Not retried: the caller's retrying() is.
    std::uint64_t ready_count(Connection& connection) const;

    const PushPlan& plan() const noexcept { return plan_; }

private:
    PushPlan plan_;
};

}  // namespace rowpump::redis
