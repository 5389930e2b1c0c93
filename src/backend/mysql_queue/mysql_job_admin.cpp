#include "backend/mysql_queue/mysql_job_admin.hpp"

#include <map>

#include "backend/mysql_queue/mysql_job_tables.hpp"
#include "mysql/connection.hpp"
#include "mysql/transaction.hpp"

namespace rowpump {

namespace {

// A job and its ranges in one result, ordered so that a job's rows come together, range by range. A job
// whose ranges are not there (never, but a hand-edited table) has one row of NULLs from the LEFT JOIN.
const char* const jobs_select =
    "SELECT j.job_id, j.fingerprint, j.definition, r.range_no, r.status = 'done', r.owner, "
    "COALESCE(r.lease_until > NOW(6), FALSE), r.lo, r.hi, r.last_key, r.rows_written, r.estimated_rows, "
    "CAST(FLOOR(UNIX_TIMESTAMP(r.written_at) * 1000) AS SIGNED) "
    "FROM rowpump_jobs j LEFT JOIN rowpump_job_ranges r ON r.job_id = j.job_id";

class MySqlJobAdmin final : public JobAdmin {
public:
    explicit MySqlJobAdmin(const MySqlOptions& options)
        : connection_(options), shown_(options.redacted()) {}

    std::vector<AdminJob> list() override {
        return connection_.retrying([&] {
            if (!ready()) return std::vector<AdminJob>{};
            return read_jobs(std::string(jobs_select) + " ORDER BY j.job_id, r.range_no", {});
        });
    }

    std::optional<AdminJob> find(const std::string& job_id) override {
        return connection_.retrying([&]() -> std::optional<AdminJob> {
            if (!ready()) return std::nullopt;
            auto jobs = read_jobs(std::string(jobs_select) + " WHERE j.job_id = ? ORDER BY r.range_no", {job_id});
            if (jobs.empty()) return std::nullopt;
            return std::move(jobs.front());
        });
    }

    // The job's row is locked first, then its ranges: a page in flight holds its range's row lock until its
    // COMMIT, so the look waits for it (10 s at most) and sees the lease as that page left it.
    RemoveResult remove(const std::string& job_id, RemoveRule rule) override {
        return connection_.retrying([&] {
            if (!ready()) return RemoveResult{RemoveOutcome::missing, {}};
            connection_.execute_text("SET SESSION innodb_lock_wait_timeout = 10");
            mysql::Transaction transaction(connection_);
            auto jobs = read_jobs(std::string(jobs_select) + " WHERE j.job_id = ? ORDER BY r.range_no FOR UPDATE",
                                  {job_id});
            if (jobs.empty()) return RemoveResult{RemoveOutcome::missing, {}};
            RemoveResult result{removal_verdict(jobs.front(), rule), std::move(jobs.front())};
            if (result.outcome != RemoveOutcome::removed) return result;
            connection_.execute("DELETE FROM rowpump_job_ranges WHERE job_id = ?", {job_id});
            connection_.execute("DELETE FROM rowpump_jobs WHERE job_id = ?", {job_id});
            transaction.commit();
            return result;
        });
    }

    std::string where() const override { return "tables rowpump_jobs, rowpump_job_ranges of " + shown_; }
    std::string owner_word() const override { return "connection"; }

private:
    bool ready() {
        if (!tables_ready_) tables_ready_ = mysql::job_tables_ready(connection_);
        return tables_ready_;
    }

    // The sessions alive now, and where each comes from (a lease held by one that is gone is free).
    std::map<std::uint64_t, std::string> live_connections() {
        std::map<std::uint64_t, std::string> live;
        auto result = connection_.query("SELECT ID, HOST FROM information_schema.PROCESSLIST");
        while (result.next()) live.emplace(result.uint64(1), result.text(2));
        return live;
    }

    std::vector<AdminJob> read_jobs(const std::string& sql, const std::vector<mysql::Param>& params) {
        auto rows = connection_.query(sql, params);
        const auto live = live_connections();
        std::vector<AdminJob> jobs;
        while (rows.next()) {
            if (jobs.empty() || jobs.back().id != rows.text(1))
                jobs.push_back({.id = rows.text(1), .fingerprint = rows.text(2), .description = rows.text(3), .ranges = {}});
            if (rows.is_null(4)) continue;
            AdminRange range;
            range.number = rows.uint32(4);
            range.done = rows.int64(5) != 0;
            if (!range.done && rows.uint64(6) != 0) {
                range.owner = std::to_string(rows.uint64(6));
                const auto session = live.find(rows.uint64(6));
                if (session != live.end()) range.owner_address = session->second;
                range.lease_live = session != live.end() && rows.int64(7) != 0;
            }
            range.lo = rows.text(8);
            range.hi = rows.text(9);
            range.checkpoint = rows.text(10);
            range.rows_written = rows.uint64(11);
            range.estimated_rows = rows.uint64(12);
            if (!rows.is_null(13)) range.written_at_ms = rows.int64(13);
            jobs.back().ranges.push_back(std::move(range));
        }
        return jobs;
    }

    mysql::Connection connection_;
    std::string shown_;
    bool tables_ready_ = false;
};

}  // namespace

std::unique_ptr<JobAdmin> open_mysql_job_admin(const MySqlOptions& connection) {
    return std::make_unique<MySqlJobAdmin>(connection);
}

}  // namespace rowpump
