#include "rowpump/error.hpp"

namespace rowpump {

namespace {
std::string config_message(const std::string& file, int line, int column, const std::string& what) {
    std::string where = file;
    if (line > 0) where += ":" + std::to_string(line);
    if (line > 0 && column > 0) where += ":" + std::to_string(column);
    return where.empty() ? what : where + ": " + what;
}
}  // namespace

ConfigError::ConfigError(std::string file, int line, int column, const std::string& what)
    : UsageError(config_message(file, line, column, what)), file_(std::move(file)), line_(line), column_(column) {}

DbError::DbError(const std::string& message, int code, std::string sqlstate, std::string query)
    : Error(message), code_(code), sqlstate_(std::move(sqlstate)), query_(std::move(query)) {}

bool DbError::is_transient() const noexcept {
    switch (code_) {
        case 1205:  // lock wait timeout
        case 1213:  // deadlock
        case 2002:  // cannot connect through socket
        case 2003:  // cannot connect to server
        case 2006:  // server has gone away
        case 2013:  // lost connection during query
        case 1927:  // MariaDB: connection was killed
        case 1053:  // server shutdown in progress
            return true;
        default:
            return false;
    }
}

}  // namespace rowpump
