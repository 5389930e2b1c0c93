// The MySQL queue's statements as text: the claim index they force, the cursor's condition, the row lists
// padded to powers of two, identifiers quoted, and as many placeholders as each statement's caller binds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "backend/mysql_queue/mysql_queue_sql.hpp"

namespace rowpump::queue {
namespace {

std::size_t placeholders(const std::string& sql) { return static_cast<std::size_t>(std::count(sql.begin(), sql.end(), '?')); }

const std::string ready_rows_of_jobs = "SELECT id, payload, version, attempts, CAST(available_at AS CHAR), crashes FROM `jobs` "
                                       "FORCE INDEX (`claim`) WHERE status = 'ready' AND priority = ? AND available_at <= NOW(6)";
const std::string lost_claim = "status = 'claimed' AND claimed_at < NOW(6) AND (owner NOT IN (SELECT ID FROM "
                               "information_schema.PROCESSLIST) OR claimed_at < NOW(6) - INTERVAL ? MICROSECOND)";

TEST(MySqlQueueSqlTest, PaddedRowsAreAPowerOfTwoFromOneTo128) {
    EXPECT_EQ(padded_rows(0), 1u);
    EXPECT_EQ(padded_rows(1), 1u);
    EXPECT_EQ(padded_rows(2), 2u);
    EXPECT_EQ(padded_rows(3), 4u);
    EXPECT_EQ(padded_rows(64), 64u);
    EXPECT_EQ(padded_rows(65), 128u);
    EXPECT_EQ(padded_rows(128), 128u);
    EXPECT_EQ(padded_rows(129), 128u) << "longer lists are cut into statements of 128";
    EXPECT_EQ(padded_rows(SIZE_MAX), 128u);
}

TEST(MySqlQueueSqlTest, ClaimsReadOneLevelInClaimOrderThroughTheClaimIndex) {
    const QueueSql sql("jobs", "claim");
    EXPECT_EQ(sql.due_ready, ready_rows_of_jobs + " ORDER BY available_at, id LIMIT ?");
    EXPECT_EQ(sql.due_ready_after,
              ready_rows_of_jobs + " AND (available_at > ? OR (available_at = ? AND id > ?)) ORDER BY available_at, id LIMIT ?");
    EXPECT_EQ(sql.due_ready_after_skipping, sql.due_ready_after + " OFFSET ?");
    EXPECT_EQ(sql.next_level, "SELECT MAX(priority) FROM `jobs` WHERE status = 'ready' AND priority < ?");
    EXPECT_EQ(sql.level_wait,
              "SELECT TIMESTAMPDIFF(MICROSECOND, MIN(available_at), NOW(6)) FROM `jobs` WHERE status = 'ready' AND priority = ?");
}

TEST(MySqlQueueSqlTest, WithoutAClaimIndexNothingIsForced) {
    const QueueSql sql("jobs", "");
    EXPECT_EQ(sql.due_ready.find("FORCE INDEX"), std::string::npos) << sql.due_ready;
    EXPECT_EQ(sql.due_ready, "SELECT id, payload, version, attempts, CAST(available_at AS CHAR), crashes FROM `jobs` WHERE "
                             "status = 'ready' AND priority = ? AND available_at <= NOW(6) ORDER BY available_at, id LIMIT ?");
}

TEST(MySqlQueueSqlTest, IdentifiersAreQuotedWithInnerBackticksDoubled) {
    const QueueSql sql("we`ird", "cl`aim");
    EXPECT_EQ(sql.next_level, "SELECT MAX(priority) FROM `we``ird` WHERE status = 'ready' AND priority < ?");
    EXPECT_NE(sql.due_ready.find("FROM `we``ird` FORCE INDEX (`cl``aim`) WHERE"), std::string::npos) << sql.due_ready;
    EXPECT_EQ(sql.ack(1), "UPDATE `we``ird` FORCE INDEX (PRIMARY) SET status = 'done', owner = 0 WHERE status = "
                          "'claimed' AND ((id = ? AND version = ?))");
}

TEST(MySqlQueueSqlTest, RowListsHoldOneConditionPerRow) {
    const QueueSql sql("jobs", "claim");
    EXPECT_EQ(sql.claim_ready(1), "UPDATE `jobs` FORCE INDEX (PRIMARY) SET status = 'claimed', owner = CONNECTION_ID(), "
                                  "claimed_at = NOW(6), version = version + 1 WHERE status = 'ready' AND ((id = ? AND "
                                  "version = ?))");
    EXPECT_EQ(sql.lock_ready(2), "SELECT id FROM `jobs` FORCE INDEX (PRIMARY) WHERE status = 'ready' AND ((id = ? AND "
                                 "version = ?) OR (id = ? AND version = ?)) FOR UPDATE SKIP LOCKED");
    EXPECT_EQ(sql.claimed_rows(3), "SELECT id, payload, version, attempts FROM `jobs` FORCE INDEX (PRIMARY) WHERE id IN "
                                   "(?, ?, ?) AND owner = CONNECTION_ID() AND status = 'claimed'");
    EXPECT_EQ(sql.ack(2), "UPDATE `jobs` FORCE INDEX (PRIMARY) SET status = 'done', owner = 0 WHERE status = 'claimed' "
                          "AND ((id = ? AND version = ?) OR (id = ? AND version = ?))");
    for (const std::size_t rows : {std::size_t{1}, std::size_t{2}, std::size_t{64}, max_rows_per_statement}) {
        EXPECT_EQ(placeholders(sql.claim_ready(rows)), 2 * rows);
        EXPECT_EQ(placeholders(sql.lock_ready(rows)), 2 * rows);
        EXPECT_EQ(placeholders(sql.ack(rows)), 2 * rows);
        EXPECT_EQ(placeholders(sql.claimed_rows(rows)), rows);
        EXPECT_EQ(placeholders(sql.reap_dead(rows)), rows + 2) << "ids, max_crashes, timeout";
        EXPECT_EQ(placeholders(sql.reap_ready(rows)), rows + 1) << "ids, timeout";
    }
}

TEST(MySqlQueueSqlTest, TheReaperTakesBackOnlyLostClaimsThroughThePrimaryKey) {
    const QueueSql sql("jobs", "claim");
    const std::string assignments =
        "last_error = CONCAT('claim taken back from connection ', owner, ' (connection gone or claim timed out)'), "
        "crashes = crashes + 1, owner = 0, version = version + 1";
    EXPECT_EQ(sql.reap_dead(2), "UPDATE `jobs` FORCE INDEX (PRIMARY) SET " + assignments +
                                    ", status = 'dead' WHERE id IN (?, ?) AND crashes + 1 >= ? AND " + lost_claim);
    EXPECT_EQ(sql.reap_ready(1),
              "UPDATE `jobs` FORCE INDEX (PRIMARY) SET " + assignments + ", status = 'ready' WHERE id IN (?) AND " + lost_claim);
    EXPECT_EQ(sql.lost_claims, "SELECT id FROM `jobs` WHERE " + lost_claim + " ORDER BY id LIMIT 8192");
}

TEST(MySqlQueueSqlTest, EachStatementBindsWhatItsCallerPasses) {
    const QueueSql sql("jobs", "claim");
    EXPECT_EQ(placeholders(sql.next_level), 1u);
    EXPECT_EQ(placeholders(sql.level_wait), 1u);
    EXPECT_EQ(placeholders(sql.due_ready), 2u) << "priority, limit";
    EXPECT_EQ(placeholders(sql.due_ready_after), 5u) << "priority, available_at, available_at, id, limit";
    EXPECT_EQ(placeholders(sql.due_ready_after_skipping), 6u);
    EXPECT_EQ(placeholders(sql.fail), 8u) << "max_attempts twice, cap, base, jitter, last_error, id, version";
    EXPECT_EQ(placeholders(sql.release), 2u);
    EXPECT_EQ(placeholders(sql.touch), 0u);
    EXPECT_EQ(placeholders(sql.row_state), 1u);
    EXPECT_EQ(placeholders(sql.lost_claims), 1u);
    EXPECT_EQ(placeholders(sql.purge), 2u);
    EXPECT_EQ(placeholders(sql.requeue_dead), 1u);
    EXPECT_EQ(placeholders(sql.count_status), 2u);
    EXPECT_EQ(placeholders(sql.backlog), 1u);
    EXPECT_EQ(placeholders(sql.holders), 0u);
}

TEST(MySqlQueueSqlTest, FailAndReleaseFenceOnTheClaimsVersion) {
    const QueueSql sql("jobs", "claim");
    EXPECT_EQ(sql.release, "UPDATE `jobs` SET status = 'ready', owner = 0, version = version + 1 WHERE id = ? AND "
                           "version = ? AND status = 'claimed'");
    const std::string fenced = "WHERE id = ? AND version = ? AND status = 'claimed'";
    ASSERT_GE(sql.fail.size(), fenced.size());
    EXPECT_EQ(sql.fail.substr(sql.fail.size() - fenced.size()), fenced) << sql.fail;
    EXPECT_NE(sql.fail.find("LEAST(attempts, 40)"), std::string::npos) << "the backoff's exponent is capped: " << sql.fail;
    EXPECT_EQ(sql.touch, "UPDATE `jobs` SET claimed_at = NOW(6) WHERE owner = CONNECTION_ID() AND status = 'claimed'");
}

}  // namespace
}  // namespace rowpump::queue
