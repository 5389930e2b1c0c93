#pragma once
// The heartbeat, as pt-heartbeat and gh-ost keep one: a timestamp that rowpump writes to a one-row table
// on the primary, which replication carries to every replica. A replica's lag is its own clock minus the
// timestamp it holds, whatever its replication threads report.
#include <optional>
#include <string>

#include "mysql/connection.hpp"

namespace rowpump::throttle {

// The table, in the source's database; created on the primary when missing.
inline constexpr const char* heartbeat_table = "rowpump_heartbeat";

class HeartbeatWriter {
public:
    // Creates the table and writes the first beat. When the primary cannot be written to (read only, no
    // privilege), says why once and stays off: replicas are then measured by Seconds_Behind_Master.
    explicit HeartbeatWriter(const MySqlOptions& primary);
    bool active() const { return connection_.has_value(); }
    // One beat; a failure is logged and the next beat tries again (the lag the replicas show grows).
    void beat();
    const std::string& database() const { return database_; }

private:
    std::optional<mysql::Connection> connection_;
    std::string database_;
    std::string table_;  // quoted, with its database
    bool failing_ = false;
};

// The lag a replica's copy of the heartbeat shows, in seconds; nullopt when it has none (no table, no
// row yet: the replica predates the heartbeat).
std::optional<double> heartbeat_lag(mysql::Connection& replica, const std::string& database);

}  // namespace rowpump::throttle
