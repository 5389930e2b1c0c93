#include "backend/mysql_queue/mysql_job_tables.hpp"

namespace rowpump::mysql {

namespace {

const char* const jobs_ddl =
    "CREATE TABLE IF NOT EXISTS rowpump_jobs ("
    " job_id VARBINARY(191) NOT NULL PRIMARY KEY,"
    " fingerprint CHAR(16) NOT NULL,"
    " definition TEXT NOT NULL,"
    " ranges INT NOT NULL,"
    " created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";

const char* const ranges_ddl =
    "CREATE TABLE IF NOT EXISTS rowpump_job_ranges ("
    " job_id VARBINARY(191) NOT NULL,"
    " range_no INT UNSIGNED NOT NULL,"
    " lo BLOB NULL, hi BLOB NULL, last_key BLOB NULL,"
    " estimated_rows BIGINT UNSIGNED NOT NULL DEFAULT 0,"
    " rows_written BIGINT UNSIGNED NOT NULL DEFAULT 0,"
    " status ENUM('pending','done') NOT NULL DEFAULT 'pending',"
    " owner BIGINT UNSIGNED NOT NULL DEFAULT 0,"
    " lease_until DATETIME(6) NULL,"
    " written_at DATETIME(6) NULL,"
    " PRIMARY KEY (job_id, range_no)"
    ") ENGINE=InnoDB";

// A nullable column at the end is added in place (instantly on MariaDB 10.3+ and MySQL 8.0), and a page of
// an older rowpump, which does not name it, still writes. Looked up first: MySQL has no ADD COLUMN IF NOT
// EXISTS.
void add_written_at(Connection& connection) {
    auto found = connection.query(
        "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
        "AND TABLE_NAME = 'rowpump_job_ranges' AND COLUMN_NAME = 'written_at'");
    if (found.next() && found.int64(1) == 0)
        connection.execute_text("ALTER TABLE rowpump_job_ranges ADD COLUMN written_at DATETIME(6) NULL");
}

}  // namespace

void create_job_tables(Connection& connection) {
    connection.execute_text(jobs_ddl);
    connection.execute_text(ranges_ddl);
    add_written_at(connection);
}

bool job_tables_ready(Connection& connection) {
    auto found = connection.query(
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() "
        "AND TABLE_NAME IN ('rowpump_jobs', 'rowpump_job_ranges')");
    if (!found.next() || found.int64(1) != 2) return false;
    add_written_at(connection);
    return true;
}

}  // namespace rowpump::mysql
