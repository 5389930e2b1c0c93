#include "mysql/server_flavor.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace rowpump::mysql {

namespace {

constexpr std::string_view replication_hack_prefix = "5.5.5-";

bool contains_mariadb(std::string_view text) {
    constexpr std::string_view name = "mariadb";
    const auto found = std::search(text.begin(), text.end(), name.begin(), name.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
    return found != text.end();
}

// Reads the digits at `at` (none: 0) and moves past them, and past one '.' after them.
int version_part(std::string_view text, std::size_t& at) {
    int value = 0;
    bool any = false;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && value < 100000) {
        value = value * 10 + (text[at++] - '0');
        any = true;
    }
    if (any && at < text.size() && text[at] == '.') ++at;
    return value;
}

}  // namespace

ServerFlavor ServerFlavor::parse(std::string_view version) {
    ServerFlavor flavor;
    flavor.kind_ = contains_mariadb(version) ? ServerKind::mariadb : ServerKind::mysql;
    if (flavor.mariadb() && version.starts_with(replication_hack_prefix))
        version.remove_prefix(replication_hack_prefix.size());
    std::size_t at = 0;
    flavor.major_ = version_part(version, at);
    flavor.minor_ = version_part(version, at);
    flavor.patch_ = version_part(version, at);
    return flavor;
}

bool ServerFlavor::at_least(int major, int minor, int patch) const {
    return std::tie(major_, minor_, patch_) >= std::tie(major, minor, patch);
}

std::string ServerFlavor::describe() const {
    return std::string(mariadb() ? "MariaDB " : "MySQL ") + std::to_string(major_) + "." + std::to_string(minor_) +
           "." + std::to_string(patch_);
}

bool ServerFlavor::skip_locked() const { return mariadb() ? at_least(10, 6, 0) : at_least(8, 0, 1); }

bool ServerFlavor::nowait() const { return mariadb() ? at_least(10, 3, 0) : at_least(8, 0, 1); }

int ServerFlavor::nowait_error() const { return mariadb() ? 1205 : 3572; }

std::string skip_locked_rows_clause(const ServerFlavor& flavor) {
    return flavor.skip_locked() ? " FOR UPDATE SKIP LOCKED" : flavor.nowait() ? " FOR UPDATE NOWAIT" : " FOR UPDATE";
}

ReplicaStatusSql replica_status_sql(const ServerFlavor& flavor) {
    if (!flavor.mariadb() && flavor.at_least(8, 0, 22))
        return {"SHOW REPLICA STATUS", "Replica_SQL_Running", "Replica_IO_Running", "Seconds_Behind_Source"};
    // MariaDB's own name from 10.5.1, for the day it drops the old one; its columns keep their names.
    const bool replica = flavor.mariadb() && flavor.at_least(10, 5, 1);
    return {replica ? "SHOW REPLICA STATUS" : "SHOW SLAVE STATUS", "Slave_SQL_Running", "Slave_IO_Running",
            "Seconds_Behind_Master"};
}

std::string statement_timeout_sql(ServerKind kind, std::chrono::seconds limit) {
    if (kind == ServerKind::mariadb) return "SET SESSION max_statement_time = " + std::to_string(limit.count());
    return "SET SESSION max_execution_time = " + std::to_string(limit.count() * 1000);
}

}  // namespace rowpump::mysql
