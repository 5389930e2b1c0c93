#include "throttle/heartbeat.hpp"

#include <algorithm>

#include "log.hpp"

namespace rowpump::throttle {

namespace {

std::string quoted_table(const std::string& database) {
    return mysql::quote_identifier(database) + "." + mysql::quote_identifier(heartbeat_table);
}

}  // namespace

HeartbeatWriter::HeartbeatWriter(const MySqlOptions& primary) : database_(primary.database) {
    if (database_.empty()) {
        log().warn("the source URL names no database for the heartbeat table: replica lag is measured by "
                   "the replicas' Seconds_Behind_Master");
        return;
    }
    table_ = quoted_table(database_);
    try {
        mysql::Connection connection(primary);
        // UTC on both sides, so that a replica in another time zone reads the same clock.
        connection.execute_text("CREATE TABLE IF NOT EXISTS " + table_ +
                                " (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, ts DATETIME(6) NOT NULL) ENGINE=InnoDB");
        connection_.emplace(std::move(connection));
        beat();
        if (failing_) connection_.reset();
    } catch (const Error& error) {
        connection_.reset();
        log().warn("cannot write the heartbeat on the primary ({}): replica lag is measured by "
                   "the replicas' Seconds_Behind_Master",
                   error.what());
    }
}

void HeartbeatWriter::beat() {
    if (!connection_) return;
    try {
        // Not `ts = VALUES(ts)`, which MySQL 8.0.20 deprecated and MariaDB's row alias syntax lacks: the
        // statement's clock is one value, on both servers.
        connection_->execute("INSERT INTO " + table_ +
                             " (id, ts) VALUES (1, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE ts = UTC_TIMESTAMP(6)");
        if (failing_) log().info("the heartbeat is written again");
        failing_ = false;
    } catch (const Error& error) {
        if (!failing_) log().warn("cannot write the heartbeat: {}", error.what());
        failing_ = true;
        try {
            connection_->reconnect();
        } catch (const Error&) {
            // The next beat tries again; meanwhile the replicas' heartbeats age and reading pauses.
        }
    }
}

std::optional<double> heartbeat_lag(mysql::Connection& replica, const std::string& database) {
    mysql::Rows rows;
    try {
        rows = replica.query("SELECT TIMESTAMPDIFF(MICROSECOND, ts, UTC_TIMESTAMP(6)) FROM " + quoted_table(database) +
                             " WHERE id = 1");
    } catch (const DbError& error) {
        if (error.code() == 1146) return std::nullopt;  // no table yet on this replica
        throw;
    }
    if (!rows.next() || rows.is_null(1)) return std::nullopt;
    return std::max(0.0, static_cast<double>(rows.int64(1)) / 1e6);
}

}  // namespace rowpump::throttle
