#pragma once
// The SQL the MySQL queue runs, built once per table. Kept apart from the code that runs it so the
// statements can be read (and copied into a worker in another language) in one place.
//
// Claims go one priority level at a time: the claim index is (status, priority, available_at, id), and
// `ORDER BY priority DESC, available_at, id` mixes directions, which MySQL can only do by sorting every
// ready row (a filesort per claim). Per level, `WHERE status='ready' AND priority=? ORDER BY
// available_at, id LIMIT n` is a range read of n index entries. The levels that have an available task
// come from a loose index scan (`GROUP BY status, priority`: two index dives per level).
#include <cstddef>
#include <string>

namespace rowpump::queue {

// Statements over a list of rows bind a padded list (the last row repeated) of a power-of-two length,
// so a connection prepares at most a handful of shapes whatever the batch sizes (the server caps
// prepared statements across all sessions).
constexpr std::size_t max_rows_per_statement = 128;
std::size_t padded_rows(std::size_t rows);
// The reaper reads lost claims in pages of this many ids.
constexpr std::size_t lost_claims_per_read = 8192;

struct QueueSql {
    explicit QueueSql(const std::string& table);

    // status, priority, microseconds since the level's earliest available_at (negative: none due yet).
    std::string levels;
    // update_then_select: params priority, limit.
    std::string claim_level;
    // The rows this session holds, in claim order: id, payload, version, attempts.
    std::string claimed_rows;
    // skip_locked: params priority, limit; id, payload, version, attempts of locked rows.
    std::string lock_level;
    // params: max_attempts, max_attempts, cap us, base us, jitter factor in millionths, last_error, id,
    // version.
    std::string fail;
    // params: id, version.
    std::string release;
    std::string touch;
    // params: id -> status, version.
    std::string row_state;
    // params: timeout us -> ids of lost claims. A plain read: no row is locked while the reaper looks.
    std::string lost_claims;
    // params: older than s, limit.
    std::string purge;
    // params: limit.
    std::string requeue_dead;
    // params: status, limit -> COUNT.
    std::string count_status;
    // owner, tasks, microseconds since the oldest claim, owner in the processlist.
    std::string holders;

    // UPDATE ... WHERE id IN (? x rows): marks locked rows claimed (skip_locked).
    std::string mark_claimed(std::size_t rows) const;
    // UPDATE ... done WHERE status='claimed' AND ((id=? AND version=?) OR ... x rows).
    std::string ack(std::size_t rows) const;
    // Takes back the lost claims among `rows` ids: params ids, max_crashes, timeout us (dead: those
    // reaching max_crashes) / ids, timeout us (ready: the rest). The condition is checked again on the
    // row locked through the primary key, which is the lock order of ack and fail too: reaping a claim
    // that is being acknowledged waits, it never deadlocks.
    std::string reap_dead(std::size_t rows) const;
    std::string reap_ready(std::size_t rows) const;

private:
    std::string table_;  // quoted
};

}  // namespace rowpump::queue
