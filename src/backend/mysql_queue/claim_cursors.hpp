#pragma once
// Where the claims on one MySQL queue table have read up to, per priority level, shared by every
// MySqlQueue of this process on that table (mysql_queue_sql.hpp says why claims read after a cursor).
//
// Shared, because consumers with a cursor each would read the same next rows: a claim reads, then
// marks what it read claimed one round trip later, and meanwhile the other consumers of the process read
// those rows too, only to find them taken (with 8 consumers, 5-6 reads per claim). Reading under one
// lock and moving one cursor gives each consumer of the process rows the others have not read.
// Consumers in other processes still meet on the same rows; the claims handle that, at a cost, and
// spread out while they keep meeting (MySqlQueue::Impl::spread).
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace rowpump::queue {

// A position in the claim index of one level: the last row read there.
struct ClaimCursor {
    std::string available_at;  // as text: DATETIME(6) text sorts like the column
    std::uint64_t id = 0;
};

class ClaimCursors {
public:
    // The cursors of the table named by `key` (server and table), shared with every caller in this
    // process that passes the same key.
    static std::shared_ptr<ClaimCursors> shared(const std::string& key);

    // Claims read one at a time per table: hold this around the read and the cursor's move.
    std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }

    // Under lock(): the level's cursor (none: read from the head), its move, its removal.
    std::optional<ClaimCursor> at(std::int64_t level) const;
    void move(std::int64_t level, ClaimCursor cursor);
    void erase(std::int64_t level);
    // Takes the lock itself. Removes every cursor, unless that was done less than `age` ago: rows left
    // behind a cursor (a reaped claim, a released task, a row committed late) wait at most about that long.
    void forget_older_than(std::chrono::milliseconds age);

private:
    std::mutex mutex_;
    std::unordered_map<std::int64_t, ClaimCursor> cursors_;
    std::chrono::steady_clock::time_point forgotten_at_{};
};

}  // namespace rowpump::queue
