#pragma once
// The SQL the MySQL queue runs, built once per table. Kept apart from the code that runs it so the
// statements can be read (and copied into a worker in another language) in one place.
//
// Claims go one priority level at a time: the claim index is (status, priority, available_at, id), and
// `ORDER BY priority DESC, available_at, id` mixes directions, which MySQL can only do by sorting every
// ready row (a filesort per claim). Per level, `WHERE status='ready' AND priority=? ORDER BY
// available_at, id LIMIT n` is a range read of n index entries. The levels that have an available task
// come from two index dives per level (`MAX(priority) ... WHERE priority < ?`, then `MIN(available_at)`).
//
// A claim reads due ready rows through that index without locks, then marks them claimed through the
// primary key (`... WHERE status = 'ready' AND ((id = ? AND version = ?) OR ...)`); only when another
// consumer took some of them in between does it read back the ones it got (`... AND owner =
// CONNECTION_ID() AND status = 'claimed'`). skip_locked locks them first, in a transaction, with
// `SELECT ... FOR UPDATE SKIP LOCKED` through the primary key. Two things are wrong with a locking read
// through the claim index (`UPDATE ... ORDER BY available_at, id LIMIT n`, or the same SELECT ... FOR
// UPDATE SKIP LOCKED), which a worker in another language may still run against the same table:
// - It locks index entry, then row. When a level has fewer due rows than n, it also locks the entry
//   after them: often a claimed row whose ack holds the row and is moving that entry. Claim and ack then
//   wait for each other (SKIP LOCKED does not skip such an entry on MariaDB 10.11 either), and on a live
//   queue, where levels run dry all the time, that deadlock is common. Here every lock is taken through
//   the primary key first, as ack, fail and the reaper do.
// - A claim moves its rows out of the ready part of the index, but InnoDB only delete-marks the old
//   entries; purge removes them some 80 commits later. A read from the head of a level steps over every
//   entry claimed since and checks each against its row: on a busy queue, ten thousand entries and two
//   thirds of a claim's cost. So the consumers of a process read after the last entry any of them read
//   (`..._after`: params priority, available_at, available_at, id, limit; claim_cursors.hpp), and from
//   the head again when that finds too few rows and at most every 200 ms. Rows left behind meanwhile
//   (a reaped claim, a released task, a row committed late) wait at most that long.
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
    // `claim_index`: the name of the (status, priority, available_at, id) index, which the claims force;
    // "" when the table has none.
    QueueSql(const std::string& table, const std::string& claim_index);

    // params: priority -> the highest priority below it that has a ready row (NULL: none).
    std::string next_level;
    // params: priority -> microseconds since the level's earliest available_at (negative: none due yet).
    std::string level_wait;
    // params priority, limit -> id, payload, version, attempts, available_at as text, crashes of the due
    // ready rows of a level, in claim order, read without locks.
    std::string due_ready;
    std::string due_ready_after;
    // due_ready_after, then the number of rows to skip: see MySqlQueue::Impl::spread.
    std::string due_ready_after_skipping;
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
    // params: limit -> over that many ready rows: those due or retried (attempts > 0), microseconds until
    // the first of them is due (NULL: none), the others.
    std::string backlog;
    // owner, tasks, microseconds since the oldest claim, owner in the processlist.
    std::string holders;
    // claimed rows, those of them whose owner is not in the processlist.
    std::string held;

    // SELECT id ... WHERE status = 'ready' AND ((id=? AND version=?) OR ... x rows) FOR UPDATE SKIP LOCKED:
    // the rows still ready at the version read that no one else is claiming (skip_locked).
    std::string lock_ready(std::size_t rows) const;
    // UPDATE ... claimed WHERE status = 'ready' AND ((id=? AND version=?) OR ... x rows): claims those still
    // ready at the version read.
    std::string claim_ready(std::size_t rows) const;
    // id, payload, version, attempts of the rows among `rows` ids that this session holds.
    std::string claimed_rows(std::size_t rows) const;
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
