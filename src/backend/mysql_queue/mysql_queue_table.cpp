#include "backend/mysql_queue/mysql_queue_table.hpp"

#include <array>
#include <map>
#include <string_view>

#include "log.hpp"
#include "mysql/connection.hpp"
#include "mysql/identifier_range.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

struct ColumnFacts {
    std::string data_type;    // information_schema DATA_TYPE: "bigint"
    std::string column_type;  // COLUMN_TYPE: "bigint(20) unsigned" (MariaDB) or "bigint unsigned" (MySQL 8)
    bool nullable = false;
};

bool one_of(std::string_view value, std::initializer_list<std::string_view> accepted) {
    for (std::string_view candidate : accepted)
        if (value == candidate) return true;
    return false;
}

// What each column must be for the producer's INSERT and the consumers' SQL to work. Widths are not
// checked where a wider type works just as well (MEDIUMTEXT payloads, INT priorities).
struct ColumnRule {
    std::string_view name;
    std::string_view expected;
    bool nullable_matters;
    bool (*fits)(const ColumnFacts&);
};

bool is_unsigned_bigint(const ColumnFacts& c) {
    return c.data_type == "bigint" && c.column_type.find("unsigned") != std::string::npos;
}
bool is_integer(const ColumnFacts& c) {
    return one_of(c.data_type, {"tinyint", "smallint", "mediumint", "int", "bigint"});
}
bool is_text(const ColumnFacts& c) { return one_of(c.data_type, {"text", "mediumtext", "longtext", "json"}); }
bool is_datetime6(const ColumnFacts& c) { return c.column_type == "datetime(6)"; }
// The producer inserts rows without a dedupe key, so the column must accept NULL.
bool is_nullable_binary(const ColumnFacts& c) { return one_of(c.data_type, {"varbinary", "binary"}) && c.nullable; }
bool is_status_enum(const ColumnFacts& c) { return c.column_type == "enum('ready','claimed','done','dead')"; }

constexpr std::array<ColumnRule, 14> column_rules{{
    {"id", "bigint unsigned", false, is_unsigned_bigint},
    {"dedupe_key", "varbinary(255) NULL", true, is_nullable_binary},
    {"priority", "tinyint", false, is_integer},
    {"payload", "longtext", false, is_text},
    {"status", "enum('ready','claimed','done','dead')", false, is_status_enum},
    {"owner", "bigint unsigned", false, is_unsigned_bigint},
    {"attempts", "int", false, is_integer},
    {"crashes", "int", false, is_integer},
    {"version", "bigint unsigned", false, is_unsigned_bigint},
    {"available_at", "datetime(6)", false, is_datetime6},
    {"claimed_at", "datetime(6)", false, is_datetime6},
    {"created_at", "datetime(6)", false, is_datetime6},
    {"updated_at", "datetime(6)", false, is_datetime6},
    {"last_error", "text", false, is_text},
}};

std::string wrong_shape(const std::string& table, const std::string& problems) {
    return "queue table " + quote_identifier(table) + " has the wrong shape: " + problems +
           "; choose another --queue or drop the table";
}

// The table's engine, or "" when it does not exist; also makes sure the URL names a database.
std::string table_engine(Connection& connection, const std::string& table) {
    auto database = connection.query("SELECT DATABASE()");
    database.next();
    if (database.is_null(1))
        throw UsageError("no database for queue table " + quote_identifier(table) + ": put it in the URL (" +
                         connection.options().redacted() + " has none)");
    auto result = connection.query(
        "SELECT COALESCE(ENGINE, TABLE_TYPE) FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        {table});
    return result.next() ? result.text(1) : std::string();
}

std::string find_claim_index(Connection& connection, const std::string& table) {
    auto indexes = connection.query(
        "SELECT INDEX_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS "
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? GROUP BY INDEX_NAME ORDER BY INDEX_NAME",
        {table});
    while (indexes.next()) {
        if (indexes.text(2).starts_with("status,priority,available_at"))
            return indexes.text(1);
    }
    log().warn("queue table {} has no index on (status, priority, available_at, id): claims will scan the table",
               quote_identifier(table));
    return {};
}

}  // namespace

void validate_queue_table_name(const std::string& table) {
    if (table.empty()) throw UsageError("no queue table given: pass --queue NAME");
    if (table.size() > 64)
        throw UsageError("queue table name '" + table.substr(0, 64) + "...' is " + std::to_string(table.size()) +
                         " characters long: MySQL allows at most 64");
    if (table.find('\0') != std::string::npos) throw UsageError("queue table name contains a NUL character");
    if (has_character_beyond_u_ffff(table))
        throw UsageError("queue table name '" + table + "' holds a character beyond U+FFFF, such as an emoji, which "
                         "MySQL names cannot hold: choose another --queue");
}

std::string queue_table_ddl(const std::string& table) {
    return "CREATE TABLE IF NOT EXISTS " + quote_identifier(table) +
           " (\n"
           "  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,\n"
           "  dedupe_key VARBINARY(255) NULL,\n"
           "  priority TINYINT NOT NULL DEFAULT 0,\n"
           "  payload LONGTEXT NOT NULL,\n"
           "  status ENUM('ready','claimed','done','dead') NOT NULL DEFAULT 'ready',\n"
           "  owner BIGINT UNSIGNED NOT NULL DEFAULT 0,\n"
           "  attempts INT NOT NULL DEFAULT 0,\n"
           "  crashes INT NOT NULL DEFAULT 0,\n"
           "  version BIGINT UNSIGNED NOT NULL DEFAULT 0,\n"
           "  available_at DATETIME(6) NOT NULL,\n"
           "  claimed_at DATETIME(6) NULL,\n"
           "  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
           "  updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),\n"
           "  last_error TEXT NULL,\n"
           "  PRIMARY KEY (id),\n"
           "  UNIQUE KEY dedupe_key (dedupe_key),\n"
           "  KEY claim_order (status, priority, available_at, id),\n"
           "  KEY owner_status (owner, status)\n"
           ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";
}

void create_queue_table(Connection& connection, const std::string& table) {
    validate_queue_table_name(table);
    connection.execute_text(queue_table_ddl(table));
}

std::string check_queue_table(Connection& connection, const std::string& table) {
    validate_queue_table_name(table);
    const std::string engine = table_engine(connection, table);
    if (engine.empty())
        throw UsageError("queue table " + quote_identifier(table) + " does not exist in " +
                         connection.options().redacted() + ": enqueue into it first or choose another --queue");
    if (engine != "InnoDB") throw UsageError(wrong_shape(table, "it is " + engine + ", expected an InnoDB table"));

    std::map<std::string, ColumnFacts, std::less<>> columns;
    auto result = connection.query(
        "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS "
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        {table});
    while (result.next()) {
        columns[result.text(1)] = ColumnFacts{
            result.text(2), result.text(3),
            result.text(4) == "YES"};
    }

    std::string problems;
    for (const ColumnRule& rule : column_rules) {
        const std::string quoted = quote_identifier(std::string(rule.name));
        std::string problem;
        auto found = columns.find(rule.name);
        if (found == columns.end()) {
            problem = "column " + quoted + " is missing";
        } else if (!rule.fits(found->second)) {
            std::string actual = found->second.column_type;
            if (rule.nullable_matters) actual += found->second.nullable ? " NULL" : " NOT NULL";
            problem = "column " + quoted + " is " + actual + ", expected " + std::string(rule.expected);
        }
        if (problem.empty()) continue;
        problems += (problems.empty() ? "" : ", ") + problem;
    }
    if (!problems.empty()) throw UsageError(wrong_shape(table, problems));
    return find_claim_index(connection, table);
}

}  // namespace rowpump::mysql
