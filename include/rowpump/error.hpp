#pragma once
// One exception root for everything rowpump throws. Each error knows the process exit code it maps to
// (docs/DESIGN.md, "Errors, exit codes, logs") and whether retrying the same operation may succeed.
#include <cstddef>
#include <stdexcept>
#include <string>

#include "rowpump/export.hpp"

namespace ROWPUMP_EXPORT rowpump {

enum class ExitCode : int {
    done = 0,
    failure = 1,      // anything else: a server error, a bug, an I/O failure
    bad_input = 2,    // bad usage, config or input; nothing was written
    interrupted = 3,  // stopped by a signal; the work can be resumed
    tasks_dead = 4,   // queue consume --until-empty: the queue is drained, but tasks went dead on the way
};

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
    virtual ExitCode exit_code() const noexcept { return ExitCode::failure; }
    // True when the same operation may succeed if tried again (lost connection, deadlock, ...).
    virtual bool is_transient() const noexcept { return false; }
};

// The user asked for something that cannot be done: unknown table, malformed URL, bad flag value.
class UsageError : public Error {
public:
    using Error::Error;
    ExitCode exit_code() const noexcept override { return ExitCode::bad_input; }
};

// A configuration file is wrong; line and column are 1-based, 0 when unknown.
class ConfigError : public UsageError {
public:
    ConfigError(std::string file, int line, int column, const std::string& what);
    const std::string& file() const noexcept { return file_; }
    int line() const noexcept { return line_; }
    int column() const noexcept { return column_; }

private:
    std::string file_;
    int line_;
    int column_;
};

// An error reported by the MySQL/MariaDB server or its client library.
class DbError : public Error {
public:
    // `transient`: trying again later may succeed; the code that reads the server's error decides (the
    // MySQL wall's table of codes, src/mysql/error_codes.hpp).
    DbError(const std::string& message, int code, std::string sqlstate, std::string query, bool transient = false);
    int code() const noexcept { return code_; }
    const std::string& sqlstate() const noexcept { return sqlstate_; }
    const std::string& query() const noexcept { return query_; }
    // Lost or refused connections, a server shutting down, lock wait timeouts and deadlocks.
    bool is_transient() const noexcept override { return transient_; }

private:
    int code_;
    bool transient_;
    std::string sqlstate_;
    std::string query_;
};

// The connection is dead: the statement may or may not have run. Reconnect and resume from a known key.
class ConnectionLost : public DbError {
public:
    using DbError::DbError;
    bool is_transient() const noexcept override { return true; }
};

// The connection was lost while COMMIT was on its way (libpqxx's in_doubt_error): the server may have
// committed the transaction before it went, or rolled it back. Only what the transaction wrote can tell,
// read on a new session. Transient like any lost connection, for callers whose retry is harmless either way.
class CommitInDoubt : public ConnectionLost {
public:
    explicit CommitInDoubt(const ConnectionLost& cause);
};

// A transient MySQL failure retried until the retry budget was spent: final, never transient, so that no
// outer retry starts the budget again.
class RetryBudgetSpent : public DbError {
public:
    using DbError::DbError;
    bool is_transient() const noexcept override { return false; }
};

// The server refused who we are (wrong password, unknown database): retrying will not help.
class AccessDenied : public DbError {
public:
    using DbError::DbError;
    ExitCode exit_code() const noexcept override { return ExitCode::bad_input; }
    bool is_transient() const noexcept override { return false; }
};

// A queue (Redis or MySQL table) cannot be used: unreachable, wrong shape, refused a write.
class QueueError : public Error {
public:
    QueueError(const std::string& message, bool transient) : Error(message), transient_(transient) {}
    bool is_transient() const noexcept override { return transient_; }

private:
    bool transient_;
};

// One message is larger than the queue's server takes in a statement (MySQL max_allowed_packet). Nothing
// of the batch from that message on was written.
class PayloadTooLarge : public QueueError {
public:
    PayloadTooLarge(const std::string& message, std::size_t index) : QueueError(message, false), index_(index) {}
    std::size_t index() const noexcept { return index_; }  // the message's position in the batch

private:
    std::size_t index_;
};

// A stop was requested (SIGINT/SIGTERM) and the work stopped at a clean point.
class Interrupted : public Error {
public:
    using Error::Error;
    ExitCode exit_code() const noexcept override { return ExitCode::interrupted; }
};

}  // namespace rowpump
