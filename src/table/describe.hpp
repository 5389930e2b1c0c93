#pragma once
// describe_table() over a connection the caller already holds.
#include "mysql/connection.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

TableInfo describe_table(mysql::Connection& connection, const std::string& table);

}  // namespace rowpump
