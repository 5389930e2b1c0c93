#pragma once
// The control plane's connection: a move-only session that runs statements with bound values, returns
// results as rowpump's own Rows, turns driver errors into rowpump errors, and retries transient failures
// within one deadline-based budget. It runs on Connector/C++ unless asked for Connector/C, which the
// queue writers are: only that driver offers array binding (execute_bulk). driver_session.hpp says what
// each driver does beneath it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mysql/retrying_session.hpp"
#include "mysql/rows.hpp"
#include "mysql/server_flavor.hpp"
#include "retry.hpp"
#include "rowpump/error.hpp"
#include "rowpump/key.hpp"
#include "rowpump/options.hpp"

namespace rowpump::mysql {

// A bound value: NULL is not needed by any query rowpump writes.
using Param = KeyPart;

// One column of a statement that runs once per row (execute_bulk): a value for each row. Text is not
// copied: it must outlive the call.
using BulkColumn = std::variant<std::vector<std::int64_t>, std::vector<std::string_view>>;

// The driver a Connection runs on. connector_c prepares what execute() runs, as Connector/C++ does, but
// sends query()'s values as escaped literals (inline_params.hpp) through the text protocol; only it
// offers execute_bulk.
enum class SessionDriver { connector_cpp, connector_c };

class DriverSession;

class Connection : public RetryingSession<Connection> {
public:
    // Connects at once; throws AccessDenied, ConnectionLost (server unreachable) or DbError.
    explicit Connection(MySqlOptions options, SessionDriver driver = SessionDriver::connector_cpp);
    ~Connection();
    Connection(Connection&&) noexcept;
    Connection& operator=(Connection&&) noexcept;

    // Runs a statement with bound values and returns its whole result.
    Rows query(const std::string& sql, const std::vector<Param>& params = {});
    // Runs a statement without a result; returns the affected row count.
    std::uint64_t execute(const std::string& sql, const std::vector<Param>& params = {});
    // Runs a statement through the text protocol (for what cannot be prepared: SET, KILL, DDL).
    void execute_text(const std::string& sql);

    // True when execute_bulk can be used: a connector_c session on a MariaDB server (10.2 and later) that
    // offers bulk execution. MySQL servers do not.
    bool supports_bulk();
    // Runs `sql`, a statement with one row's placeholders, once for each row of `columns` (all of one
    // length), in one round trip with array binding (COM_STMT_BULK_EXECUTE): the server parses it once
    // and binds each row without writing its values into the statement's text. Returns the affected row
    // count. Only when supports_bulk(); a server that refuses it for this statement throws DbError (4033
    // under binlog_format=STATEMENT).
    std::uint64_t execute_bulk(const std::string& sql, const std::vector<BulkColumn>& columns);

    // The server's id of this session, as CONNECTION_ID() returns it.
    std::uint64_t connection_id();
    // The same, asked once per session: what a lease held by this session is stored under.
    std::uint64_t session_id();
    // Which server this session talks to, from its handshake: what a statement that differs between
    // MySQL and MariaDB, or between their versions, is chosen by (server_flavor.hpp).
    const ServerFlavor& server_flavor();
    // True when the server answers a ping.
    bool alive();
    // Drops the session and opens a new one: one attempt.
    void reconnect();

    // retrying(action): transient failures retried within options().retry_budget, reconnecting as needed
    // (retrying_session.hpp).
    const MySqlOptions& options() const { return options_; }

private:
    friend class RetryingSession<Connection>;
    void open();
    // Waits, then reconnects when the session is gone; throws the final error once `deadline` is spent.
    void recover_from(const Error& error, int attempt, const RetryDeadline& deadline);
    MySqlOptions options_;
    SessionDriver driver_;
    std::unique_ptr<DriverSession> session_;
};

// The rowpump error that a server or driver error means, whichever driver reported it (one error table).
// `sql` is the statement that failed.
[[noreturn]] void throw_server_error(int code, const std::string& state, const std::string& what,
                                     const std::string& sql, const MySqlOptions& options);
// A connection that could not be opened: a server that cannot be reached says so, with the cause.
[[noreturn]] void throw_connect_error(int code, const std::string& state, const std::string& what,
                                      const MySqlOptions& options);

// Every session of either driver, the first and each one after a reconnect, gets the options' settings,
// each statement sent through `run`: time_zone = '+00:00', the statement time limit (in the variable of
// `flavor`'s kind, then the other one's if the server knows no such variable: a proxy may report another
// server's version), then the options' session_variables (a value the server refuses for one of those
// throws UsageError).
void apply_session_settings(const MySqlOptions& options, const ServerFlavor& flavor,
                            const std::function<void(const std::string&)>& run);

// Before retry `attempt` + 1 after `error` (`reason` is what to log: the latest failure): throws the final
// error, saying how long it was retried, once `deadline` is spent; otherwise logs and waits its backoff.
void wait_before_retry(const Error& error, const std::string& reason, int attempt, const RetryDeadline& deadline);

// Either driver's way back after a transient `error`: waits its backoff, then goes on with the session
// when `still_usable()` says it can (never after a lost connection), or calls `reopen()`, until a session
// is there or `deadline` is spent. A reopen that fails transiently is waited for and tried again.
void recover_session(const Error& error, int attempt, const RetryDeadline& deadline,
                     const std::function<bool()>& still_usable, const std::function<void()>& reopen);

// Quotes an identifier with backticks, doubling any backtick inside it.
std::string quote_identifier(const std::string& name);

}  // namespace rowpump::mysql
