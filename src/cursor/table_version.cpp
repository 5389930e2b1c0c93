#include "cursor/table_version.hpp"

namespace rowpump {

TableVersion table_version(mysql::Connection& connection, const TableInfo& table) {
    auto rows = connection.query(
        "SELECT UNIX_TIMESTAMP(UPDATE_TIME), UNIX_TIMESTAMP(), UNIX_TIMESTAMP(CREATE_TIME) FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
        {table.schema, table.name});
    TableVersion out;
    if (!rows.next()) return out;  // now 0: never vouches
    if (!rows.is_null(1)) out.changed = rows.int64(1);
    out.now = rows.int64(2);
    if (!rows.is_null(3)) out.created = rows.int64(3);
    return out;
}

}  // namespace rowpump
