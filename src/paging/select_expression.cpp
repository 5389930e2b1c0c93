#include "paging/select_expression.hpp"

#include "mysql/connection.hpp"

namespace rowpump {

std::string select_expression(const Column& column, const std::string& qualifier) {
    const std::string name = (qualifier.empty() ? "" : qualifier + ".") + mysql::quote_identifier(column.name);
    switch (column.kind) {
        case ColumnKind::date:
        case ColumnKind::datetime:
        case ColumnKind::time:
        case ColumnKind::floating:
        case ColumnKind::decimal:  // the driver's fixed 64-byte buffer truncates DECIMAL(63..65)
            return "CAST(" + name + " AS CHAR)";
        case ColumnKind::bit:
            return "CAST(" + name + " AS UNSIGNED)";
        default:
            return name;
    }
}

}  // namespace rowpump
