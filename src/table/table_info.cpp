#include <algorithm>

#include "mysql/connection.hpp"
#include "rowpump/error.hpp"
#include "rowpump/table.hpp"
#include "table/describe.hpp"

namespace rowpump {

const Column* TableInfo::find_column(const std::string& column) const {
    auto found = std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.name == column; });
    return found == columns.end() ? nullptr : &*found;
}

const Column& TableInfo::column(const std::string& column) const {
    if (const Column* found = find_column(column)) return *found;
    std::string known;
    for (const auto& c : columns) known += (known.empty() ? "" : ", ") + c.name;
    throw UsageError("unknown column '" + column + "' in table " + quoted_name() + ": its columns are " + known);
}

std::string TableInfo::quoted_name() const {
    return mysql::quote_identifier(schema) + "." + mysql::quote_identifier(name);
}

ColumnKind column_kind(const std::string& data_type, const std::string& column_type) {
    static const char* integers[] = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint"};
    static const char* texts[] = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"};
    // Spatial values reach the client as the server's internal bytes (a 4-byte SRID, then WKB): binary.
    static const char* binaries[] = {"binary",     "varbinary",       "tinyblob",        "blob",
                                     "mediumblob", "longblob",        "geometry",        "point",
                                     "linestring", "polygon",         "multipoint",      "multilinestring",
                                     "multipolygon", "geometrycollection", "geomcollection"};
    auto is_one_of = [&](const auto& names) {
        return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return data_type == n; });
    };
    if (is_one_of(integers))
        return column_type.find("unsigned") != std::string::npos ? ColumnKind::unsigned_integer
                                                                 : ColumnKind::signed_integer;
    if (data_type == "decimal" || data_type == "numeric") return ColumnKind::decimal;
    if (data_type == "float" || data_type == "double" || data_type == "real") return ColumnKind::floating;
    if (data_type == "bit") return ColumnKind::bit;
    if (data_type == "year") return ColumnKind::year;
    if (data_type == "date") return ColumnKind::date;
    if (data_type == "datetime" || data_type == "timestamp") return ColumnKind::datetime;
    if (data_type == "time") return ColumnKind::time;
    if (data_type == "json") return ColumnKind::json;
    if (is_one_of(texts)) return ColumnKind::text;
    if (is_one_of(binaries)) return ColumnKind::binary;
    return ColumnKind::other;
}

}  // namespace rowpump
