// The server's flavor from its version string, as the handshake and SELECT VERSION() give it, and the
// statements and names chosen by it: the replica status statement and its columns, the statement time
// limit, the locking read that skips locked rows.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "mysql/server_flavor.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

namespace rowpump::mysql {
namespace {

// Version strings as servers send them.
constexpr const char* mariadb_10_4 = "5.5.5-10.4.32-MariaDB";
constexpr const char* mariadb_10_5 = "10.5.23-MariaDB-0+deb11u1-log";
constexpr const char* mariadb_10_5_0 = "5.5.5-10.5.0-MariaDB";
constexpr const char* mariadb_10_11 = "10.11.6-MariaDB-0+deb12u1-log";
constexpr const char* mariadb_11 = "11.4.2-MariaDB-ubu2404";
constexpr const char* mysql_5_7 = "5.7.44-log";
constexpr const char* mysql_8_0_21 = "8.0.21";
constexpr const char* mysql_8_0_22 = "8.0.22";
constexpr const char* mysql_8_4 = "8.4.3";

TEST(ServerFlavor, ReadsKindAndVersionFromTheServersStrings) {
    EXPECT_EQ(ServerFlavor::parse(mariadb_10_4).describe(), "MariaDB 10.4.32");
    EXPECT_EQ(ServerFlavor::parse(mariadb_10_5).describe(), "MariaDB 10.5.23");
    EXPECT_EQ(ServerFlavor::parse(mariadb_10_11).describe(), "MariaDB 10.11.6");
    EXPECT_EQ(ServerFlavor::parse(mariadb_11).describe(), "MariaDB 11.4.2");
    EXPECT_EQ(ServerFlavor::parse(mysql_5_7).describe(), "MySQL 5.7.44");
    EXPECT_EQ(ServerFlavor::parse(mysql_8_0_22).describe(), "MySQL 8.0.22");
    EXPECT_EQ(ServerFlavor::parse(mysql_8_4).describe(), "MySQL 8.4.3");
    EXPECT_EQ(ServerFlavor::parse("8.4.3-commercial").describe(), "MySQL 8.4.3");
    EXPECT_EQ(ServerFlavor::parse("8.0.36-28").describe(), "MySQL 8.0.36");  // Percona Server
    EXPECT_EQ(ServerFlavor::parse("10.6.16-MariaDB").kind(), ServerKind::mariadb);
    EXPECT_EQ(ServerFlavor::parse("5.7.44").kind(), ServerKind::mysql);
}

TEST(ServerFlavor, ComparesVersionsByNumberNotText) {
    const auto flavor = ServerFlavor::parse(mariadb_10_11);
    EXPECT_TRUE(flavor.at_least(10, 5, 1));
    EXPECT_TRUE(flavor.at_least(10, 11, 6));
    EXPECT_FALSE(flavor.at_least(10, 11, 7));
    EXPECT_FALSE(flavor.at_least(11, 0, 0));
    EXPECT_FALSE(ServerFlavor::parse("10.2.44-MariaDB").at_least(10, 11, 0));
}

TEST(ServerFlavor, AStringWithoutAVersionHasEveryFeatureOff) {
    for (const char* text : {"", "unknown", "v8.0"}) {
        SCOPED_TRACE(text);
        const auto flavor = ServerFlavor::parse(text);
        EXPECT_EQ(flavor.describe(), "MySQL 0.0.0");
        EXPECT_FALSE(flavor.skip_locked());
        EXPECT_EQ(replica_status_sql(flavor).statement, "SHOW SLAVE STATUS");
    }
}

struct ReplicaCase {
    const char* version;
    const char* statement;
    const char* sql_running;
    const char* io_running;
    const char* seconds_behind;
};

TEST(ServerFlavor, ReplicaStatusStatementAndColumnsFollowTheVersion) {
    const std::vector<ReplicaCase> cases{
        {mariadb_10_4, "SHOW SLAVE STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mariadb_10_5_0, "SHOW SLAVE STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mariadb_10_5, "SHOW REPLICA STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mariadb_10_11, "SHOW REPLICA STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mariadb_11, "SHOW REPLICA STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mysql_5_7, "SHOW SLAVE STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mysql_8_0_21, "SHOW SLAVE STATUS", "Slave_SQL_Running", "Slave_IO_Running", "Seconds_Behind_Master"},
        {mysql_8_0_22, "SHOW REPLICA STATUS", "Replica_SQL_Running", "Replica_IO_Running", "Seconds_Behind_Source"},
        {mysql_8_4, "SHOW REPLICA STATUS", "Replica_SQL_Running", "Replica_IO_Running", "Seconds_Behind_Source"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.version);
        const ReplicaStatusSql sql = replica_status_sql(ServerFlavor::parse(c.version));
        EXPECT_EQ(sql.statement, c.statement);
        EXPECT_EQ(sql.sql_running, c.sql_running);
        EXPECT_EQ(sql.io_running, c.io_running);
        EXPECT_EQ(sql.seconds_behind, c.seconds_behind);
    }
}

TEST(ServerFlavor, SkipLockedOnlyWhereTheServerHasIt) {
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mariadb_10_4)), " FOR UPDATE NOWAIT");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mariadb_10_5)), " FOR UPDATE NOWAIT");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse("10.6.0-MariaDB")), " FOR UPDATE SKIP LOCKED");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mariadb_10_11)), " FOR UPDATE SKIP LOCKED");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mariadb_11)), " FOR UPDATE SKIP LOCKED");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mysql_5_7)), " FOR UPDATE");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mysql_8_0_22)), " FOR UPDATE SKIP LOCKED");
    EXPECT_EQ(skip_locked_rows_clause(ServerFlavor::parse(mysql_8_4)), " FOR UPDATE SKIP LOCKED");
    EXPECT_EQ(ServerFlavor::parse(mariadb_10_5).nowait_error(), 1205);
    EXPECT_EQ(ServerFlavor::parse(mysql_8_4).nowait_error(), 3572);
}

// The statements a session's settings send, in order, to a server that knows every variable but `unknown`.
std::vector<std::string> settings_sent(const char* version, const std::string& unknown = "") {
    MySqlOptions options;
    options.statement_timeout = std::chrono::seconds(60);
    std::vector<std::string> sent;
    apply_session_settings(options, ServerFlavor::parse(version), [&](const std::string& sql) {
        sent.push_back(sql);
        if (!unknown.empty() && sql.find(unknown) != std::string::npos)
            throw DbError("Unknown system variable '" + unknown + "'", 1193, "HY000", sql);
    });
    return sent;
}

TEST(ServerFlavor, TheStatementTimeLimitIsTheServersOwnVariable) {
    const std::string mariadb = "SET SESSION max_statement_time = 60";
    const std::string mysql = "SET SESSION max_execution_time = 60000";
    for (const char* version : {mariadb_10_4, mariadb_10_11, mariadb_11})
        EXPECT_EQ(settings_sent(version).at(1), mariadb) << version;
    for (const char* version : {mysql_5_7, mysql_8_0_22, mysql_8_4})
        EXPECT_EQ(settings_sent(version).at(1), mysql) << version;
    // A proxy that reports another server's version: the other variable, after the server's refusal.
    EXPECT_EQ(settings_sent(mysql_8_4, "max_execution_time"),
              (std::vector<std::string>{"SET SESSION time_zone = '+00:00'", mysql, mariadb}));
}

}  // namespace
}  // namespace rowpump::mysql
