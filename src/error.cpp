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

DbError::DbError(const std::string& message, int code, std::string sqlstate, std::string query, bool transient)
    : Error(message), code_(code), transient_(transient), sqlstate_(std::move(sqlstate)), query_(std::move(query)) {}

CommitInDoubt::CommitInDoubt(const ConnectionLost& cause)
    : ConnectionLost(std::string(cause.what()) + " (during COMMIT: the transaction may have been committed or not)",
                     cause.code(), cause.sqlstate(), cause.query()) {}

}  // namespace rowpump
