#pragma once
// One replica's lag, looked at between the copy's pages: by the heartbeat when the primary writes one,
// else by the replica's own Seconds_Behind_Master (Seconds_Behind_Source on MySQL 8.0.22 and
// later), or by the user's --lag-query. A replica that cannot tell (a stopped SQL
// or IO thread, a NULL lag, no answer) counts as lagging: a throttle that guesses is no throttle.
#include <optional>
#include <string>

#include "mysql/connection.hpp"

namespace rowpump::throttle {

struct LagReading {
    std::optional<double> seconds;  // nullopt: unknown
    std::string problem;            // why it is unknown or untrusted ("SQL thread stopped"); empty: none
    bool lagging(double max_lag) const { return !problem.empty() || !seconds || *seconds > max_lag; }
};

class ReplicaProbe {
public:
    // Connects at once: an unreachable replica, or one that is no replica when no lag query replaces the
    // check, is a UsageError before anything is read.
    ReplicaProbe(const MySqlOptions& replica, std::string lag_query);
    // `heartbeat_database`: where the primary's heartbeat is (empty: none is written).
    LagReading read(const std::string& heartbeat_database);
    // host:port, never the password: it is shown in /status, logs and metrics.
    const std::string& name() const { return name_; }

private:
    LagReading read_replication_status(const std::string& heartbeat_database);

    std::string name_;
    std::string lag_query_;
    mysql::Connection connection_;
    mysql::ReplicaStatusSql status_sql_;  // SHOW SLAVE or REPLICA STATUS, by the replica's version
    bool broken_ = false;  // the last look failed: reconnect before the next
};

}  // namespace rowpump::throttle
