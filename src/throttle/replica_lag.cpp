#include "throttle/replica_lag.hpp"

#include "config/option_error.hpp"
#include "throttle/heartbeat.hpp"

namespace rowpump::throttle {

namespace {

// A look at a replica must never hold up the copy's checks for long: a few seconds, no retries (the next
// look, a moment later, is the retry; meanwhile the replica counts as lagging).
MySqlOptions probe_options(MySqlOptions options) {
    options.connect_timeout = std::chrono::seconds(5);
    options.read_timeout = std::chrono::seconds(5);
    options.write_timeout = std::chrono::seconds(5);
    options.retry_budget = std::chrono::seconds(0);
    return options;
}

std::string replica_name(const MySqlOptions& options) {
    return options.socket.empty() ? options.host + ":" + std::to_string(options.port) : options.socket;
}

mysql::Connection connect(const MySqlOptions& options) {
    try {
        return mysql::Connection(probe_options(options));
    } catch (const Error& error) {
        throw config::OptionError({config::OptionId::replica, " " + options.redacted() + ": cannot connect: " +
                                                               error.what() +
                                                               "; check the URL, or leave that replica out"});
    }
}

}  // namespace

ReplicaProbe::ReplicaProbe(const MySqlOptions& replica, std::string lag_query)
    : name_(replica_name(replica)),
      lag_query_(std::move(lag_query)),
      connection_(connect(replica)),
      status_sql_(mysql::replica_status_sql(connection_.server_flavor())) {
    if (lag_query_.empty() && connection_.query(status_sql_.statement).size() == 0)
        throw config::OptionError({config::OptionId::replica, " " + replica.redacted() +
                                                               ": the server is not a replica (" +
                                                               status_sql_.statement +
                                                               " is empty); name a replica of the source, or give ",
                                   config::OptionId::lag_query});
    if (!lag_query_.empty()) {
        try {
            connection_.query(lag_query_);
        } catch (const DbError& error) {
            throw config::OptionError({config::OptionId::lag_query, " fails on replica " + name_ + ": " + error.what()});
        }
    }
}

LagReading ReplicaProbe::read(const std::string& heartbeat_database) {
    try {
        if (broken_) connection_.reconnect();
        broken_ = false;
        if (lag_query_.empty()) return read_replication_status(heartbeat_database);
        mysql::Rows rows = connection_.query(lag_query_);
        if (!rows.next() || rows.column_count() == 0 || rows.is_null(1)) return {std::nullopt, "lag unknown (NULL)"};
        return {rows.real(1), ""};
    } catch (const Error& error) {
        broken_ = true;
        return {std::nullopt, std::string("cannot be asked: ") + error.what()};
    }
}

LagReading ReplicaProbe::read_replication_status(const std::string& heartbeat_database) {
    mysql::Rows status = connection_.query(status_sql_.statement);
    if (!status.next()) return {std::nullopt, "no longer a replica"};
    if (status.text(status.column(status_sql_.sql_running)) != "Yes") return {std::nullopt, "SQL thread stopped"};
    // "Connecting" counts too: events are not arriving.
    if (const auto& io = status.text(status.column(status_sql_.io_running)); io != "Yes")
        return {std::nullopt, io == "No" ? "IO thread stopped" : "IO thread " + io};
    if (!heartbeat_database.empty())
        if (auto lag = heartbeat_lag(connection_, heartbeat_database)) return {lag, ""};
    const std::size_t behind = status.column(status_sql_.seconds_behind);
    if (status.is_null(behind)) return {std::nullopt, "lag unknown (" + status_sql_.seconds_behind + " is NULL)"};
    return {status.real(behind), ""};
}

}  // namespace rowpump::throttle
