#pragma once
// What a job's ledger needs of the keys it writes a page into: the page pushed (plain, or fenced in one
// MULTI/EXEC with the checkpoint's move), the keys' types checked before the job starts, and the ready count.
// The lists' PageWriter is one; a stream's writer (backend/redis_streams/) is another, so the Redis job
// store, its leases, splits and fences serve both.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/redis/redis_delayed_member.hpp"
#include "redis/connection.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::redis {

// What a fenced page commits with its rows: `script`, run inside the page's MULTI after its pushes, with
// KEYS = `range_key`, then the writer's destination keys; ARGV = `arguments` (lease ms, last key, rows).
// The caller WATCHes what the fence rests on before write(). A writer whose keys are not lists and a sorted
// set runs its own script of the same ARGV, which checks its own keys' types.
struct CheckpointMove {
    std::string_view script;
    std::string_view range_key;
    std::vector<std::string> arguments;
};

class QueueWriter {
public:
    virtual ~QueueWriter() = default;
    // Throws UsageError when a destination key exists with another type.
    virtual void check_key_types(Connection& connection) const = 0;
    // Pushes `batch`; with `fence`, in one MULTI/EXEC with its checkpoint move: false when the EXEC was
    // aborted (a WATCHed key changed), QueueError when a command inside it was refused.
    virtual bool write(Connection& connection, const std::vector<Message>& batch, DelayedTag first_tag,
                       const CheckpointMove* fence) = 0;
    // The ready tasks waiting in the destination. Not retried: the caller's retrying() is.
    virtual std::uint64_t ready_count(Connection& connection) const = 0;
};

// Makes each ledger's own writer (a ledger per worker).
using QueueWriterFactory = std::function<std::unique_ptr<QueueWriter>()>;

}  // namespace rowpump::redis
