#include "backend/mysql_queue/mysql_queue_sql.hpp"

#include <algorithm>
#include <bit>

#include "mysql/connection.hpp"

namespace rowpump::queue {

namespace {

// The claim columns every claim statement sets. version + 1 fences out whoever held the row before.
constexpr const char* claim_assignments =
    "status = 'claimed', owner = CONNECTION_ID(), claimed_at = NOW(6), version = version + 1";

// A claim is lost when its owner's connection is gone, or when it is older than the timeout (param).
// `claimed_at < NOW(6)` keeps claims made after this statement started out of it: a connection that
// opened after the processlist was read is missing from it, yet alive, and its claims start later.
constexpr const char* lost_claim =
    "status = 'claimed' AND claimed_at < NOW(6) AND (owner NOT IN (SELECT ID FROM information_schema.PROCESSLIST) "
    "OR claimed_at < NOW(6) - INTERVAL ? MICROSECOND)";

}  // namespace

std::size_t padded_rows(std::size_t rows) { return std::bit_ceil(std::clamp<std::size_t>(rows, 1, max_rows_per_statement)); }

QueueSql::QueueSql(const std::string& table, const std::string& claim_index) : table_(mysql::quote_identifier(table)) {
    const std::string& t = table_;
    // MIN and MAX over a prefix of the claim index are a single index dive ("Select tables optimized
    // away") whatever the table's statistics say; a GROUP BY is a loose index scan only when they say
    // the table is big, and queue tables are emptied and refilled faster than statistics follow.
    next_level = "SELECT MAX(priority) FROM " + t + " WHERE status = 'ready' AND priority < ?";
    level_wait = "SELECT TIMESTAMPDIFF(MICROSECOND, MIN(available_at), NOW(6)) FROM " + t +
                 " WHERE status = 'ready' AND priority = ?";
    // FORCE INDEX: for the cursor's OR, the optimizer may choose to merge the primary key in and sort.
    const std::string claim_table =
        claim_index.empty() ? t : t + " FORCE INDEX (" + mysql::quote_identifier(claim_index) + ")";
    const std::string ready_rows = "SELECT id, payload, version, attempts, CAST(available_at AS CHAR), crashes FROM " +
                                   claim_table + " WHERE status = 'ready' AND priority = ? AND available_at <= NOW(6)";
    const std::string after_cursor = " AND (available_at > ? OR (available_at = ? AND id > ?))";
    const std::string in_claim_order = " ORDER BY available_at, id LIMIT ?";
    due_ready = ready_rows + in_claim_order;
    due_ready_after = ready_rows + after_cursor + in_claim_order;
    due_ready_after_skipping = due_ready_after + " OFFSET ?";
    // Assignments run left to right (MySQL and MariaDB): status and available_at read the old attempts.
    fail = "UPDATE " + t +
           " SET status = IF(attempts + 1 >= ?, 'dead', 'ready'), "
           "available_at = IF(attempts + 1 >= ?, available_at, NOW(6) + INTERVAL "
           "FLOOR(LEAST(?, ? * POW(2, LEAST(attempts, 40))) * ? / 1000000) MICROSECOND), "
           "attempts = attempts + 1, owner = 0, version = version + 1, last_error = ? "
           "WHERE id = ? AND version = ? AND status = 'claimed'";
    release = "UPDATE " + t + " SET status = 'ready', owner = 0, version = version + 1 "
              "WHERE id = ? AND version = ? AND status = 'claimed'";
    touch = "UPDATE " + t + " SET claimed_at = NOW(6) WHERE owner = CONNECTION_ID() AND status = 'claimed'";
    row_state = "SELECT status, version FROM " + t + " WHERE id = ?";
    lost_claims = "SELECT id FROM " + t + " WHERE " + lost_claim + " ORDER BY id LIMIT " + std::to_string(lost_claims_per_read);
    purge = "DELETE FROM " + t + " WHERE status = 'done' AND updated_at < NOW(6) - INTERVAL ? SECOND LIMIT ?";
    requeue_dead = "UPDATE " + t +
                   " SET status = 'ready', attempts = 0, crashes = 0, owner = 0, version = version + 1, "
                   "available_at = NOW(6) WHERE status = 'dead' LIMIT ?";
    count_status = "SELECT COUNT(*) FROM (SELECT 1 FROM " + t + " WHERE status = ? LIMIT ?) counted";
    // NOW(6) is one value for the whole statement, so the three columns agree on what is due.
    backlog = "SELECT COALESCE(SUM(waiting), 0), "
              "TIMESTAMPDIFF(MICROSECOND, NOW(6), MIN(IF(waiting, available_at, NULL))), COALESCE(SUM(NOT waiting), 0) "
              "FROM (SELECT available_at, available_at <= NOW(6) OR attempts > 0 AS waiting FROM " + t +
              " WHERE status = 'ready' LIMIT ?) ready_rows";
    holders = "SELECT owner, COUNT(*), TIMESTAMPDIFF(MICROSECOND, MIN(claimed_at), NOW(6)), "
              "owner IN (SELECT ID FROM information_schema.PROCESSLIST) FROM " + t +
              " WHERE status = 'claimed' GROUP BY owner ORDER BY owner";
    held = "SELECT COUNT(*), COALESCE(SUM(owner NOT IN (SELECT ID FROM information_schema.PROCESSLIST)), 0) FROM " + t +
           " WHERE status = 'claimed'";
}

namespace {

std::string id_version_pairs(std::size_t rows) {
    std::string pairs;
    for (std::size_t row = 0; row < rows; ++row) pairs += row == 0 ? "(id = ? AND version = ?)" : " OR (id = ? AND version = ?)";
    return pairs;
}

std::string id_list(std::size_t rows) {
    std::string list = "id IN (";
    for (std::size_t row = 0; row < rows; ++row) list += row == 0 ? "?" : ", ?";
    return list + ")";
}

// last_error first: assignments run left to right, and owner is reset below.
constexpr const char* reap_assignments =
    "last_error = CONCAT('claim taken back from connection ', owner, ' (connection gone or claim timed out)'), "
    "crashes = crashes + 1, owner = 0, version = version + 1";

}  // namespace

std::string QueueSql::reap_dead(std::size_t rows) const {
    return "UPDATE " + table_ + " FORCE INDEX (PRIMARY) SET " + reap_assignments + ", status = 'dead' WHERE " +
           id_list(rows) + " AND crashes + 1 >= ? AND " + lost_claim;
}

std::string QueueSql::reap_ready(std::size_t rows) const {
    return "UPDATE " + table_ + " FORCE INDEX (PRIMARY) SET " + reap_assignments + ", status = 'ready' WHERE " +
           id_list(rows) + " AND " + lost_claim;
}

std::string QueueSql::claim_ready(std::size_t rows) const {
    return "UPDATE " + table_ + " FORCE INDEX (PRIMARY) SET " + claim_assignments + " WHERE status = 'ready' AND (" +
           id_version_pairs(rows) + ")";
}

std::string QueueSql::lock_ready(std::size_t rows) const {
    return "SELECT id FROM " + table_ + " FORCE INDEX (PRIMARY) WHERE status = 'ready' AND (" + id_version_pairs(rows) +
           ") FOR UPDATE SKIP LOCKED";
}

std::string QueueSql::claimed_rows(std::size_t rows) const {
    return "SELECT id, payload, version, attempts FROM " + table_ + " FORCE INDEX (PRIMARY) WHERE " + id_list(rows) +
           " AND owner = CONNECTION_ID() AND status = 'claimed'";
}

std::string QueueSql::ack(std::size_t rows) const {
    // FORCE INDEX: with few claimed rows the optimizer prefers the (status, ...) index and then reads
    // every claimed row of every consumer; the primary key reads just these.
    return "UPDATE " + table_ + " FORCE INDEX (PRIMARY) SET status = 'done', owner = 0 WHERE status = 'claimed' AND (" +
           id_version_pairs(rows) + ")";
}

}  // namespace rowpump::queue
