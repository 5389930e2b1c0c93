#pragma once
// describe_table() over a connection the caller already holds.
#include "mysql/connection.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

TableInfo describe_table(mysql::Connection& connection, const std::string& table);

// Maps information_schema's DATA_TYPE/COLUMN_TYPE to a kind.
ColumnKind column_kind(const std::string& data_type, const std::string& column_type);

}  // namespace rowpump
