#pragma once
// The only place Connector/C++ appears: a move-only connection that prepares and caches statements,
// binds values, turns driver exceptions into rowpump errors, and reconnects with backoff.
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/key.hpp"
#include "rowpump/options.hpp"

namespace sql {
class Connection;
}

namespace rowpump::mysql {

// A bound value: NULL is not needed by any query rowpump writes.
using Param = KeyPart;

class Connection {
public:
    // Connects at once; throws AccessDenied, ConnectionLost (server unreachable) or DbError.
    explicit Connection(MySqlOptions options);
    ~Connection();
    Connection(Connection&&) noexcept;
    Connection& operator=(Connection&&) noexcept;

    // Runs a statement with bound values and returns its (fully buffered) result.
    std::unique_ptr<sql::ResultSet> query(const std::string& sql, const std::vector<Param>& params = {});
    // Runs a statement without a result; returns the affected row count.
    std::uint64_t execute(const std::string& sql, const std::vector<Param>& params = {});
    // Runs a statement through the text protocol (for what cannot be prepared: SET, KILL, DDL).
    void execute_text(const std::string& sql);

    // The server's id of this session, as CONNECTION_ID() returns it.
    std::uint64_t connection_id();
    // True when the server answers a ping.
    bool alive();
    // Drops the session and opens a new one, retrying with exponential backoff up to `attempts` times.
    void reconnect(int attempts = 8);

    // Calls `action`; when it fails with a transient error (lost connection, deadlock), reconnects if
    // needed and calls it again, up to `attempts` times. `action` must be safe to repeat.
    template <class Action>
    auto retrying(Action&& action, int attempts = 8) -> decltype(action()) {
        for (int attempt = 1;; ++attempt) {
            try {
                return action();
            } catch (const Error& error) {
                if (!error.is_transient() || attempt >= attempts) throw;
                recover_from(error, attempt);
            }
        }
    }

    const MySqlOptions& options() const { return options_; }

private:
    void open();
    void recover_from(const Error& error, int attempt);
    sql::PreparedStatement& prepare(const std::string& sql);

    MySqlOptions options_;
    std::unique_ptr<sql::Connection> connection_;
    std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
};

// Converts a driver exception into the rowpump error it means. `sql` is the statement that failed.
[[noreturn]] void throw_db_error(const std::exception& driver_error, const std::string& sql,
                                 const MySqlOptions& options);

// Quotes an identifier with backticks, doubling any backtick inside it.
std::string quote_identifier(const std::string& name);

}  // namespace rowpump::mysql
