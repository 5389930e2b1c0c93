#include <algorithm>
#include <map>

#include "config/option_error.hpp"
#include "mysql/connection.hpp"
#include "mysql/identifier_range.hpp"
#include "rowpump/error.hpp"
#include "rowpump/table.hpp"
#include "table/describe.hpp"

namespace rowpump {

namespace {

std::pair<std::string, std::string> split_table_name(mysql::Connection& connection, const std::string& table) {
    if (table.empty())
        throw config::OptionError({"no table given: pass ", config::OptionId::table, " NAME (or schema.name)"});
    if (auto dot = table.find('.'); dot != std::string::npos)
        return {table.substr(0, dot), table.substr(dot + 1)};
    auto result = connection.query("SELECT DATABASE()");
    result.next();
    if (result.is_null(1))
        throw UsageError("table '" + table + "' has no database: name it as schema.table or put the database in "
                         "the URL (mysql://user@host:port/database)");
    return {result.text(1), table};
}

// MariaDB's JSON is an alias of LONGTEXT with a CHECK (json_valid(`col`)) constraint named after the column
// (MySQL's is a type of its own, which column_kind() knows). Such a column is marked JSON, as MariaDB's own
// clients do. MySQL's CHECK_CONSTRAINTS has no TABLE_NAME (error 1054): there nothing is to be found here.
void mark_mariadb_json_columns(mysql::Connection& connection, TableInfo& info) {
    const bool any_longtext = std::any_of(info.columns.begin(), info.columns.end(),
                                          [](const Column& column) { return column.column_type == "longtext"; });
    if (!any_longtext) return;
    constexpr int unknown_column = 1054;
    try {
        auto checks = connection.query(
            "SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE "
            "CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?",
            {info.schema, info.name});
        while (checks.next()) {
            const std::string name = checks.text(1);
            for (Column& column : info.columns)
                if (column.name == name && column.column_type == "longtext" &&
                    checks.text(2) == "json_valid(" + mysql::quote_identifier(name) + ")")
                    column.kind = ColumnKind::json;
        }
    } catch (const DbError& error) {
        if (error.code() != unknown_column) throw;
    }
}

[[noreturn]] void table_not_found(const TableInfo& info, const std::string& why) {
    throw config::OptionError({"table " + info.quoted_name() + " not found (" + why + "): check ",
                               config::OptionId::table, " and the database in the URL"});
}

}  // namespace

TableInfo describe_table(mysql::Connection& connection, const std::string& table) {
    TableInfo info;
    std::tie(info.schema, info.name) = split_table_name(connection, table);
    if (mysql::has_character_beyond_u_ffff(info.schema) || mysql::has_character_beyond_u_ffff(info.name))
        table_not_found(info, "MySQL names cannot hold characters beyond U+FFFF, such as emoji");

    auto columns = connection.query(
        "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COALESCE(NUMERIC_PRECISION, 0), "
        "COALESCE(NUMERIC_SCALE, 0) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
        "ORDER BY ORDINAL_POSITION",
        {info.schema, info.name});
    while (columns.next()) {
        Column column;
        column.name = columns.text(1);
        column.column_type = columns.text(3);
        column.kind = column_kind(columns.text(2), column.column_type);
        column.nullable = columns.text(4) == "YES";
        column.numeric_precision = columns.int32(5);
        column.numeric_scale = columns.int32(6);
        info.columns.push_back(std::move(column));
    }
    if (info.columns.empty()) table_not_found(info, "or not visible to user '" + connection.options().user + "'");
    mark_mariadb_json_columns(connection, info);

    // Prefix indexes (SUB_PART) cannot order or bound the full column, so they cannot page a table.
    auto indexes = connection.query(
        "SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME, MAX(SUB_PART IS NOT NULL) OVER (PARTITION BY INDEX_NAME) "
        "FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
        "ORDER BY INDEX_NAME, SEQ_IN_INDEX",
        {info.schema, info.name});
    std::map<std::string, Index> by_name;
    std::vector<std::string> order;
    while (indexes.next()) {
        if (indexes.int64(4) != 0) continue;
        const std::string name = indexes.text(1);
        auto [entry, inserted] = by_name.try_emplace(name);
        if (inserted) {
            entry->second.name = name;
            entry->second.unique = indexes.int64(2) == 0;
            order.push_back(name);
        }
        entry->second.columns.push_back(indexes.text(3));
    }
    for (const auto& name : order) {
        if (name == "PRIMARY") info.primary_key = by_name[name].columns;
        info.indexes.push_back(std::move(by_name[name]));
    }
    return info;
}

TableInfo describe_table(const MySqlOptions& mysql, const std::string& table) {
    mysql::Connection connection(mysql);
    return describe_table(connection, table);
}

}  // namespace rowpump
