#pragma once
// Which server a session talks to, MySQL or MariaDB and its version, read once from the version string
// that the handshake carries (the same text as SELECT VERSION()), and the statements and names that
// differ between them. Every choice that depends on the server is made here, from this one value, so that
// a new server version is one change in one file. docs/DESIGN.md ("MySQL and MariaDB") lists them.
#include <chrono>
#include <string>
#include <string_view>

namespace rowpump::mysql {

enum class ServerKind { mysql, mariadb };

class ServerFlavor {
public:
    ServerFlavor() = default;
    // "10.11.6-MariaDB-0+deb12u1-log", "5.5.5-10.4.32-MariaDB" (the prefix that MariaDB before 11 sends so
    // that old clients take it for MySQL 5.5.5), "8.0.22", "8.4.3-commercial", "5.7.44-log". A string that
    // starts with no version reads as MySQL 0.0.0: every feature below is off, the oldest statements used.
    static ServerFlavor parse(std::string_view version);

    ServerKind kind() const { return kind_; }
    bool mariadb() const { return kind_ == ServerKind::mariadb; }
    // The version is at least major.minor.patch (of this kind of server).
    bool at_least(int major, int minor, int patch) const;
    // "MariaDB 10.11.6", "MySQL 8.4.3", for messages.
    std::string describe() const;

    // SELECT ... FOR UPDATE SKIP LOCKED: MySQL 8.0.1, MariaDB 10.6.
    bool skip_locked() const;
    // SELECT ... FOR UPDATE NOWAIT: MySQL 8.0.1, MariaDB 10.3.
    bool nowait() const;
    // The error a locking read gets for a row that NOWAIT would have waited for (MySQL 3572, MariaDB 1205).
    int nowait_error() const;

private:
    ServerKind kind_ = ServerKind::mysql;
    int major_ = 0;
    int minor_ = 0;
    int patch_ = 0;
};

// The end of a locking read that passes over rows another session has locked: " FOR UPDATE SKIP LOCKED",
// else " FOR UPDATE NOWAIT" (a locked row fails the statement with nowait_error()), else " FOR UPDATE".
std::string skip_locked_rows_clause(const ServerFlavor& flavor);

// The statement that shows a replica's state, and the names of the columns rowpump reads from it.
// MySQL 8.0.22 renamed both (SHOW REPLICA STATUS, Replica_SQL_Running, Seconds_Behind_Source) and 8.4
// removed SHOW SLAVE STATUS; MariaDB accepts SHOW REPLICA STATUS from 10.5.1 but keeps the Slave_* and
// _Master column names.
struct ReplicaStatusSql {
    std::string statement;
    std::string sql_running;
    std::string io_running;
    std::string seconds_behind;
};
ReplicaStatusSql replica_status_sql(const ServerFlavor& flavor);

// The statement that limits how long each statement of the session may run: MariaDB's max_statement_time
// (seconds, every statement), MySQL's max_execution_time (milliseconds, read-only SELECTs: the page queries).
std::string statement_timeout_sql(ServerKind kind, std::chrono::seconds limit);

}  // namespace rowpump::mysql
