// Job state in two tables beside the queue table. A page is one transaction: the fenced checkpoint
// UPDATE first (it locks the range row and proves the lease), then the queue INSERT, then COMMIT. A
// COMMIT in doubt (the connection lost on its way) is settled by the checkpoint, read on a new session.
#include <map>
#include <set>

#include "checkpoint/job_store.hpp"
#include "checkpoint/key_codec.hpp"
#include "log.hpp"
#include "mysql/connection.hpp"
#include "mysql/error_codes.hpp"
#include "mysql/transaction.hpp"
#include "backend/mysql_queue/mysql_job_tables.hpp"
#include "backend/mysql_queue/mysql_page_writer.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "rowpump/error.hpp"
#include "backend/mysql_queue/mysql_queue_writers.hpp"

namespace rowpump {

namespace {

constexpr int no_such_thread = 1094;  // KILL of a connection that has ended

class MySqlJobLedger final : public JobLedger {
public:
    // Its session writes the queue rows, so it runs on Connector/C, for array binding (mysql/connection.hpp).
    MySqlJobLedger(const MySqlQueueTarget& target, const JobDefinition& definition)
        : connection_(target.connection, mysql::SessionDriver::connector_c),
          definition_(definition),
          writer_(connection_, target.table, target.priority_lists.size()) {}

    std::optional<StoredRange> lease() override {
        return connection_.retrying([&] { return lease_once(); });
    }

    PageWrite write(StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) override {
        // Once a COMMIT of this page is in doubt: the session that sent it, whose lease the next attempt
        // settles first (settle_in_doubt).
        std::optional<std::uint64_t> in_doubt;
        return connection_.retrying([&] {
            if (in_doubt) {
                const InDoubtPage found = settle_in_doubt(range, last_key, *in_doubt);
                in_doubt.reset();
                if (found == InDoubtPage::committed) return PageWrite::written;
                if (found == InDoubtPage::taken_over) return PageWrite::lost;
            }
            const std::uint64_t owner = connection_.session_id();
            try {
                return write_once(range, batch, last_key);
            } catch (const CommitInDoubt&) {
                in_doubt = owner;
                throw;
            }
        });
    }

    bool complete(const StoredRange& range) override {
        return connection_.retrying([&] {
            return connection_.execute(
                       "UPDATE rowpump_job_ranges SET status = 'done', owner = 0, lease_until = NULL "
                       "WHERE job_id = ? AND range_no = ? AND owner = CONNECTION_ID()",
                       {definition_.job_id, static_cast<std::int64_t>(range.number)}) == 1;
        });
    }

    std::optional<std::uint64_t> ready_count() override {
        return connection_.retrying([this] { return std::optional<std::uint64_t>(writer_.ready_count()); });
    }

    std::vector<StoredRange> pending_ranges() override {
        return connection_.retrying([&] {
            std::vector<StoredRange> ranges;
            auto result = connection_.query(
                "SELECT range_no, lo, hi, last_key, rows_written, estimated_rows, owner FROM rowpump_job_ranges "
                "WHERE job_id = ? AND status = 'pending' AND owner <> CONNECTION_ID()",
                {definition_.job_id});
            while (result.next()) ranges.push_back(stored_range(result));
            return ranges;
        });
    }

    std::optional<StoredRange> split(const StoredRange& victim, const KeyValue& split, std::uint64_t moved_rows,
                                     const std::function<bool(const KeyValue&)>& before_split) override {
        return connection_.retrying([&] {
            // An owner holds its range's row lock through each page transaction, most of the time while it
            // writes: the thief waits for it, a second at most (an owner stopped inside its transaction
            // must not hold the thief; its lease expires and its connection is ended by the next lease).
            connection_.execute_text("SET SESSION innodb_lock_wait_timeout = 1");
            std::optional<StoredRange> taken;
            try {
                // A split whose COMMIT is in doubt is tried again: had it been committed, the victim's bound
                // has moved, the fence refuses, and the new range, leased by the dead session, is free.
                mysql::Transaction transaction(connection_);
                taken = split_once(victim, split, moved_rows, before_split);
                if (taken) transaction.commit();
            } catch (const DbError& error) {
                if (error.code() != mysql::codes::lock_wait_timeout) throw;
            }
            connection_.execute_text("SET SESSION innodb_lock_wait_timeout = DEFAULT");
            return taken;
        });
    }

private:
    std::int64_t lease_seconds() const { return static_cast<std::int64_t>(definition_.lease_timeout.count()); }

    PageWrite write_once(StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) {
        // Fenced on the upper bound too: a split commits its new bound under this row's lock, so a page is
        // either written before the split (below the split key, which lies after this checkpoint) or
        // refused after it.
        const mysql::CheckpointMove move{
            "UPDATE rowpump_job_ranges SET last_key = ?, rows_written = rows_written + ?, "
            "lease_until = NOW(6) + INTERVAL ? SECOND, written_at = NOW(6) WHERE job_id = ? AND range_no = ? AND "
            "owner = CONNECTION_ID() AND status = 'pending' AND hi <=> NULLIF(?, '')",
            {encode_key(last_key), static_cast<std::int64_t>(batch.size()), lease_seconds(), definition_.job_id,
             static_cast<std::int64_t>(range.number), encode_key(range.range.hi)}};
        return writer_.write(batch, &move) ? PageWrite::written : refusal(range);
    }

    enum class InDoubtPage { committed, not_committed, taken_over };

    // On a new session, after the COMMIT of the page up to `last_key` was in doubt: the range's row says
    // what became of it. While the dead session `owner` still holds the lease nobody else has written the
    // range, so its checkpoint is either the page's last key (committed) or the one before (rolled back).
    // The old session is ended first and the row is read under its lock, so a COMMIT the server was still
    // working on has ended one way or the other before the row is read. The lease then moves to this
    // session; not_committed leaves the page to be written again. taken_over: another worker took the
    // range after the old session went, and its checkpoint, not this ledger, counts the page.
    InDoubtPage settle_in_doubt(const StoredRange& range, const KeyValue& last_key, std::uint64_t owner) {
        end_connection(owner);
        mysql::Transaction transaction(connection_);
        auto row = connection_.query(
            "SELECT owner = ? AND status = 'pending', last_key <=> ? FROM rowpump_job_ranges "
            "WHERE job_id = ? AND range_no = ? FOR UPDATE",
            {owner, encode_key(last_key), definition_.job_id, static_cast<std::int64_t>(range.number)});
        if (!row.next() || row.int64(1) == 0) {
            log().warn("range {} of job {}: the COMMIT of the page up to {} was in doubt, and another worker has "
                       "taken the range over since: that worker's checkpoint says whether the page is written",
                       range.number, definition_.job_id, to_string(last_key));
            return InDoubtPage::taken_over;
        }
        const bool committed = row.int64(2) != 0;
        connection_.execute(
            "UPDATE rowpump_job_ranges SET owner = CONNECTION_ID(), lease_until = NOW(6) + INTERVAL ? SECOND "
            "WHERE job_id = ? AND range_no = ?",
            {lease_seconds(), definition_.job_id, static_cast<std::int64_t>(range.number)});
        transaction.commit();
        log().info("range {} of job {}: the COMMIT of the page up to {} was in doubt; the checkpoint says it was {}",
                   range.number, definition_.job_id, to_string(last_key),
                   committed ? "committed" : "not committed (writing it again)");
        return committed ? InDoubtPage::committed : InDoubtPage::not_committed;
    }

    // KILL CONNECTION `id`, which has ended already when the server says 1094.
    void end_connection(std::uint64_t id) {
        try {
            connection_.execute_text("KILL CONNECTION " + std::to_string(id));
        } catch (const DbError& error) {
            if (error.code() != no_such_thread) throw;
        }
    }

    // Columns range_no, lo, hi, last_key, rows_written, estimated_rows, owner, in this order.
    StoredRange stored_range(mysql::Rows& result) const {
        StoredRange range;
        range.number = result.uint32(1);
        range.range.lo = decode_optional_key(result.text(2), definition_.key_columns);
        range.range.hi = decode_optional_key(result.text(3), definition_.key_columns);
        range.last_key = decode_optional_key(result.text(4), definition_.key_columns);
        range.rows_written = result.uint64(5);
        range.estimated_rows = result.uint64(6);
        range.owner = result.uint64(7);
        return range;
    }

    // A page's fence matched nothing: still this connection's range with another upper bound (a split),
    // or a lost lease. Read after the ROLLBACK, so no lock of this connection is held any more.
    PageWrite refusal(StoredRange& range) {
        auto result = connection_.query(
            "SELECT hi, last_key FROM rowpump_job_ranges WHERE job_id = ? AND range_no = ? AND "
            "owner = CONNECTION_ID() AND status = 'pending'",
            {definition_.job_id, static_cast<std::int64_t>(range.number)});
        if (!result.next()) return PageWrite::lost;
        range.range.hi = decode_optional_key(result.text(1), definition_.key_columns);
        range.last_key = decode_optional_key(result.text(2), definition_.key_columns);
        return PageWrite::shrunk;
    }

    // Inside a transaction. The job's row is locked first (it numbers the new range), then the victim's.
    std::optional<StoredRange> split_once(const StoredRange& victim, const KeyValue& split, std::uint64_t moved_rows,
                                          const std::function<bool(const KeyValue&)>& before_split) {
        auto job = connection_.query("SELECT ranges FROM rowpump_jobs WHERE job_id = ? FOR UPDATE", {definition_.job_id});
        if (!job.next()) return std::nullopt;
        const std::uint32_t number = job.uint32(1);
        const std::string old_hi = encode_key(victim.range.hi);
        auto fence = connection_.query(
            "SELECT estimated_rows, last_key <=> NULLIF(?, ''), last_key FROM rowpump_job_ranges WHERE job_id = ? "
            "AND range_no = ? AND status = 'pending' AND owner = ? AND hi <=> NULLIF(?, '') FOR UPDATE",
            {encode_key(victim.last_key), definition_.job_id, static_cast<std::int64_t>(victim.number), victim.owner,
             old_hi});
        if (!fence.next()) return std::nullopt;
        // The owner committed pages since the thief read its checkpoint: the split key must still lie after
        // the newer one. The row stays locked meanwhile, so it cannot move again before the COMMIT.
        if (fence.int64(2) == 0) {
            const auto now = decode_optional_key(fence.text(3), definition_.key_columns);
            if (!now || !before_split(*now)) return std::nullopt;
        }
        const std::uint64_t estimated = fence.uint64(1);
        const std::string split_key = encode_key(split);
        connection_.execute("UPDATE rowpump_job_ranges SET hi = ?, estimated_rows = ? WHERE job_id = ? AND range_no = ?",
                            {split_key, static_cast<std::int64_t>(estimated > moved_rows ? estimated - moved_rows : 0),
                             definition_.job_id, static_cast<std::int64_t>(victim.number)});
        connection_.execute(
            "INSERT INTO rowpump_job_ranges (job_id, range_no, lo, hi, estimated_rows, owner, lease_until) VALUES "
            "(?, ?, ?, NULLIF(?, ''), ?, CONNECTION_ID(), NOW(6) + INTERVAL ? SECOND)",
            {definition_.job_id, static_cast<std::int64_t>(number), split_key, old_hi,
             static_cast<std::int64_t>(moved_rows), lease_seconds()});
        connection_.execute("UPDATE rowpump_jobs SET ranges = ranges + 1 WHERE job_id = ?", {definition_.job_id});
        StoredRange taken;
        taken.number = number;
        taken.range = {split, victim.range.hi};
        taken.estimated_rows = moved_rows;
        return taken;
    }

    std::set<std::uint64_t> live_connections() {
        std::set<std::uint64_t> ids;
        auto result = connection_.query("SELECT ID FROM information_schema.PROCESSLIST");
        while (result.next()) ids.insert(result.uint64(1));
        return ids;
    }

    std::optional<StoredRange> lease_once() {
        const auto live = live_connections();
        // Candidates come from a plain read; then each is locked alone and looked at again. A lease that
        // locked every pending row at once would hide them all from the workers leasing at the same
        // moment, who would then split a remainder while a range lay free.
        std::vector<std::uint32_t> candidates;
        auto result = connection_.query(
            "SELECT range_no, owner, COALESCE(lease_until < NOW(6), TRUE) FROM rowpump_job_ranges "
            "WHERE job_id = ? AND status = 'pending' ORDER BY range_no",
            {definition_.job_id});
        while (result.next())
            if (is_free(result.uint64(2), result.int64(3) != 0, live)) candidates.push_back(result.uint32(1));
        for (const std::uint32_t number : candidates)
            if (auto chosen = lease_candidate(number, live)) return chosen;
        end_stuck_page_transactions(live);
        return std::nullopt;
    }

    static bool is_free(std::uint64_t owner, bool expired, const std::set<std::uint64_t>& live) {
        return owner == 0 || expired || !live.count(owner);
    }

    std::optional<StoredRange> lease_candidate(std::uint32_t number, const std::set<std::uint64_t>& live) {
        std::optional<StoredRange> chosen;
        mysql::Transaction transaction(connection_);
        // SKIP LOCKED: a range whose owner is committing a page right now is not free anyway, and one that
        // another worker is leasing right now is that worker's. A server without it (MariaDB before 10.6)
        // fails the read with NOWAIT instead, which means the same here.
        const mysql::ServerFlavor& flavor = connection_.server_flavor();
        mysql::Rows result;
        try {
            result = connection_.query(
                "SELECT range_no, lo, hi, last_key, rows_written, estimated_rows, owner, "
                "COALESCE(lease_until < NOW(6), TRUE) FROM rowpump_job_ranges "
                "WHERE job_id = ? AND range_no = ? AND status = 'pending'" + mysql::skip_locked_rows_clause(flavor),
                {definition_.job_id, static_cast<std::int64_t>(number)});
        } catch (const DbError& error) {
            if (flavor.skip_locked() || error.code() != flavor.nowait_error()) throw;
            return std::nullopt;
        }
        if (result.next() && is_free(result.uint64(7), result.int64(8) != 0, live)) {
            const std::uint64_t owner = result.uint64(7);
            if (owner != 0)
                log().info("taking over range {} of job {} from connection {} ({})", number, definition_.job_id,
                           owner, live.count(owner) ? "lease expired" : "gone");
            chosen = stored_range(result);
            connection_.execute(
                "UPDATE rowpump_job_ranges SET owner = CONNECTION_ID(), lease_until = NOW(6) + INTERVAL ? SECOND "
                "WHERE job_id = ? AND range_no = ?",
                {lease_seconds(), definition_.job_id, static_cast<std::int64_t>(number)});
        }
        // A lease whose COMMIT is in doubt is leased again: had it been committed, it belongs to the dead
        // session, which makes it free.
        transaction.commit();
        return chosen;
    }

    // An owner stopped (SIGSTOP, swapped out, a half-open TCP connection) inside its page transaction keeps
    // the range row locked, so SKIP LOCKED hides the range from everyone and its lease can never be taken
    // over. Such a range shows, in a plain consistent read, a committed lease that has expired: its owner
    // has committed nothing for a whole lease timeout. Seen so on two looks in a row (a lock held that long
    // is no other worker's brief lease transaction), the owner's connection is killed: the server rolls its
    // page back (nothing of it reaches the queue) and the range is free at the next look. If the owner
    // wakes up, its connection is gone and its next write is refused like any lost lease.
    void end_stuck_page_transactions(const std::set<std::uint64_t>& live) {
        auto result = connection_.query(
            "SELECT range_no, owner FROM rowpump_job_ranges WHERE job_id = ? AND status = 'pending' AND owner <> 0 "
            "AND lease_until < NOW(6)",
            {definition_.job_id});
        std::map<std::uint32_t, std::uint64_t> stuck;
        while (result.next())
            if (live.count(result.uint64(2))) stuck.emplace(result.uint32(1), result.uint64(2));
        for (const auto& [range_no, owner] : stuck) {
            const auto seen = stuck_before_.find(range_no);
            if (seen == stuck_before_.end() || seen->second != owner) continue;
            log().warn("range {} of job {}: connection {} has held its page transaction past its lease; ending "
                       "that connection so the range can be taken over",
                       range_no, definition_.job_id, owner);
            try {
                connection_.execute_text("KILL CONNECTION " + std::to_string(owner));
            } catch (const DbError& error) {
                // 1094: it ended by itself meanwhile. Anything else (1095: another user's connection) the
                // operator must resolve; the range stays where it is until then.
                if (error.code() != no_such_thread)
                    log().warn("could not end connection {} holding range {} of job {}: {}", owner, range_no,
                               definition_.job_id, error.what());
            }
        }
        stuck_before_ = std::move(stuck);
    }

    mysql::Connection connection_;
    JobDefinition definition_;
    mysql::PageWriter writer_;
    std::map<std::uint32_t, std::uint64_t> stuck_before_;  // range -> owner, as the last look found them
};

class MySqlJobStore final : public JobStore {
public:
    MySqlJobStore(MySqlQueueTarget target, JobDefinition definition)
        : target_(std::move(target)), definition_(std::move(definition)), connection_(target_.connection) {
        connection_.retrying([&] {
            mysql::create_job_tables(connection_);
        });
    }

    JobState state() override {
        return connection_.retrying([&] {
            JobState state;
            auto job = connection_.query("SELECT fingerprint, definition, ranges FROM rowpump_jobs WHERE job_id = ?",
                                         {definition_.job_id});
            if (!job.next()) return state;
            state.exists = true;
            state.fingerprint = job.text(1);
            state.description = job.text(2);
            state.ranges = job.uint32(3);
            auto ranges = connection_.query(
                "SELECT range_no, status = 'done', rows_written, estimated_rows, lo, hi, last_key "
                "FROM rowpump_job_ranges WHERE job_id = ? ORDER BY range_no",
                {definition_.job_id});
            while (ranges.next()) {
                StoredRangeState range;
                range.stored.number = ranges.uint32(1);
                range.done = ranges.int64(2) != 0;
                range.stored.rows_written = ranges.uint64(3);
                range.stored.estimated_rows = ranges.uint64(4);
                range.stored.range.lo = decode_optional_key(ranges.text(5), definition_.key_columns);
                range.stored.range.hi = decode_optional_key(ranges.text(6), definition_.key_columns);
                range.stored.last_key = decode_optional_key(ranges.text(7), definition_.key_columns);
                if (range.done) ++state.ranges_done;
                state.rows_written += range.stored.rows_written;
                state.estimated_rows += range.stored.estimated_rows;
                state.range_states.push_back(std::move(range));
            }
            return state;
        });
    }

    JobState create(const std::vector<Partition>& partitions) override {
        prepare_queue();
        connection_.retrying([&] {
            // A creation whose COMMIT is in doubt is tried again: the job is there already, or not at all.
            mysql::Transaction transaction(connection_);
            const auto inserted = connection_.execute(
                "INSERT IGNORE INTO rowpump_jobs (job_id, fingerprint, definition, ranges) VALUES (?, ?, ?, ?)",
                {definition_.job_id, definition_.fingerprint, definition_.description,
                 static_cast<std::int64_t>(partitions.size())});
            for (std::size_t i = 0; inserted == 1 && i < partitions.size(); ++i)
                connection_.execute(
                    "INSERT INTO rowpump_job_ranges (job_id, range_no, lo, hi, estimated_rows) VALUES (?, ?, "
                    "NULLIF(?, ''), NULLIF(?, ''), ?)",
                    {definition_.job_id, static_cast<std::int64_t>(i), encode_key(partitions[i].range.lo),
                     encode_key(partitions[i].range.hi), static_cast<std::int64_t>(partitions[i].estimated_rows)});
            transaction.commit();
        });
        return state();
    }

    std::unique_ptr<JobLedger> open_ledger() override {
        prepare_queue();
        return std::make_unique<MySqlJobLedger>(target_, definition_);
    }

private:
    // The queue table appears only for a job this run creates or joins (its definition matched): a
    // refused run leaves nothing behind.
    void prepare_queue() {
        if (queue_ready_) return;
        connection_.retrying([&] {
            mysql::create_queue_table(connection_, target_.table);
            mysql::check_queue_table(connection_, target_.table);
        });
        queue_ready_ = true;
    }

    MySqlQueueTarget target_;
    JobDefinition definition_;
    mysql::Connection connection_;
    bool queue_ready_ = false;
};

}  // namespace

std::unique_ptr<JobStore> open_mysql_job_store(MySqlQueueTarget target, const JobDefinition& definition) {
    mysql::validate_queue_table_name(target.table);
    return std::make_unique<MySqlJobStore>(std::move(target), definition);
}

}  // namespace rowpump
