#include "mysql/connection.hpp"

#include <cctype>
#include <thread>

#include "config/option_error.hpp"
#include "log.hpp"
#include "mysql/driver_session.hpp"
#include "mysql/error_codes.hpp"
#include "mysql/tls.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

constexpr int unknown_system_variable = 1193;
constexpr int statement_timeout_mariadb = 1969;  // max_statement_time exceeded
constexpr int statement_timeout_mysql = 3024;    // max_execution_time exceeded

}  // namespace

std::string quote_identifier(const std::string& name) {
    std::string out = "`";
    for (char c : name) {
        if (c == '`') out += '`';
        out += c;
    }
    return out + "`";
}

void throw_server_error(int code, const std::string& state, const std::string& what, const std::string& sql,
                        const MySqlOptions& options) {
    std::string message = redact_url(what);
    if (code == 1045 || code == 1044 || code == 1049 || code == 1698)
        throw AccessDenied("MySQL refused " + options.redacted() + ": " + message +
                               " (check the user, password and database in the URL)",
                           code, state, sql);
    if (code == statement_timeout_mariadb || code == statement_timeout_mysql)
        throw DbError("MySQL stopped a statement that ran past its time limit: " + message +
                          " (a page query: raise --page-timeout, lower --page-size, or give --where an index)",
                      code, state, sql, codes::is_transient(code));
    if (codes::is_connection_loss(code))
        throw ConnectionLost("MySQL connection to " + options.redacted() + " lost: " + message, code, state, sql);
    throw DbError("MySQL error " + std::to_string(code) + " (" + state + "): " + message, code, state, sql,
                  codes::is_transient(code));
}

void throw_connect_error(int code, const std::string& state, const std::string& what, const MySqlOptions& options) {
    if (auto line = explain_tls_failure(code, what, options)) throw AccessDenied(*line, code, state, "");
    if (codes::is_connection_loss(code))
        throw ConnectionLost("cannot connect to MySQL at " + options.redacted() + ": " + redact_url(what) +
                                 " (is the server running? check host and port)",
                             code, state, "");
    throw_server_error(code, state, what, "", options);
}

Connection::Connection(MySqlOptions options, SessionDriver driver) : options_(std::move(options)), driver_(driver) {
    open();
}
Connection::~Connection() = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

std::uint64_t DriverSession::execute_bulk(const std::string& sql, const std::vector<BulkColumn>&) {
    throw Error("bug: execute_bulk on a session without array binding, for " + sql);
}

void Connection::open() {
    session_.reset();
    // Each driver refuses a plain session when TLS is required (driver_session.hpp).
    session_ = driver_ == SessionDriver::connector_c ? open_client_session(options_) : open_cppconn_session(options_);
    apply_session_settings(options_, session_->flavor, [this](const std::string& sql) { execute_text(sql); });
}

namespace {

bool is_number(const std::string& value) {
    std::size_t i = value.starts_with('-') ? 1 : 0;
    const std::size_t digits = i;
    while (i < value.size() && std::isdigit(static_cast<unsigned char>(value[i]))) ++i;
    if (i == digits) return false;
    if (i < value.size() && value[i] == '.') {
        const std::size_t fraction = ++i;
        while (i < value.size() && std::isdigit(static_cast<unsigned char>(value[i]))) ++i;
        if (i == fraction) return false;
    }
    return i == value.size();
}

// The value as SQL: a number or DEFAULT as it is, a word (check_session_variable let through only
// letters, digits and _ . : + - /) in quotes. A numeric variable refuses a quoted number.
std::string value_literal(const std::string& value) {
    std::string upper;
    for (unsigned char c : value) upper += static_cast<char>(std::toupper(c));
    if (is_number(value) || upper == "DEFAULT") return value;
    return "'" + value + "'";
}

}  // namespace

void apply_session_settings(const MySqlOptions& options, const ServerFlavor& flavor,
                            const std::function<void(const std::string&)>& run) {
    // TIMESTAMP values reach the client in the session's zone: in UTC they can be written with a Z,
    // whatever zone the server runs in. DATETIME values are not converted by any zone.
    run("SET SESSION time_zone = '+00:00'");
    if (options.statement_timeout.count() > 0) {
        const ServerKind kind = flavor.kind();
        try {
            run(statement_timeout_sql(kind, options.statement_timeout));
        } catch (const DbError& error) {
            if (error.code() != unknown_system_variable) throw;
            const ServerKind other = kind == ServerKind::mariadb ? ServerKind::mysql : ServerKind::mariadb;
            run(statement_timeout_sql(other, options.statement_timeout));
        }
    }
    for (const auto& [name, value] : options.session_variables) {
        // Checked when they were given; checked again here because a program fills MySqlOptions itself.
        check_session_variable(name, value, "the session variables");
        try {
            run("SET SESSION " + quote_identifier(name) + " = " + value_literal(value));
        } catch (const DbError& error) {
            // Unknown (1193), a wrong value or type (1231, 1232), read-only (1238), global only (1229).
            if (error.code() != unknown_system_variable && error.code() != 1231 && error.code() != 1232 &&
                error.code() != 1238 && error.code() != 1229)
                throw;
            throw config::OptionError({"the server refused the session variable " + name + "=" + value + " (",
                                       config::OptionId::set_vars,
                                       "): " + redact_url(error.what()) + "; correct or remove it"});
        }
    }
}

void Connection::reconnect() { open(); }

void wait_before_retry(const Error& error, const std::string& reason, int attempt, const RetryDeadline& deadline) {
    if (deadline.spent()) {
        const auto* db_error = dynamic_cast<const DbError*>(&error);
        throw RetryBudgetSpent(reason + "; gave up after retrying for " + describe_duration(deadline.budget()) +
                          " (--retry-budget)",
                               db_error ? db_error->code() : 0, db_error ? db_error->sqlstate() : "HY000",
                               db_error ? db_error->query() : "");
    }
    const auto wait = deadline.next_wait(attempt);
    log().warn("{}; retrying in {} ms", reason, wait.count());
    std::this_thread::sleep_for(wait);
}

void recover_session(const Error& error, int attempt, const RetryDeadline& deadline,
                     const std::function<bool()>& still_usable, const std::function<void()>& reopen) {
    std::string reason = error.what();
    bool session_gone = dynamic_cast<const ConnectionLost*>(&error) != nullptr;
    for (;; ++attempt) {
        wait_before_retry(error, reason, attempt, deadline);
        if (!session_gone && still_usable()) return;
        try {
            reopen();
            return;
        } catch (const Error& reconnect_error) {
            if (!reconnect_error.is_transient()) throw;
            reason = reconnect_error.what();
            session_gone = true;
        }
    }
}

void Connection::recover_from(const Error& error, int attempt, const RetryDeadline& deadline) {
    recover_session(error, attempt, deadline, [this] { return session_ && alive(); }, [this] { open(); });
}

Rows Connection::query(const std::string& sql, const std::vector<Param>& params) {
    if (!session_) open();
    return session_->query(sql, params);
}

std::uint64_t Connection::execute(const std::string& sql, const std::vector<Param>& params) {
    if (!session_) open();
    return session_->execute(sql, params);
}

void Connection::execute_text(const std::string& sql) {
    if (!session_) open();
    session_->execute_text(sql);
}

bool Connection::supports_bulk() {
    if (!session_) open();
    return session_->supports_bulk();
}

std::uint64_t Connection::execute_bulk(const std::string& sql, const std::vector<BulkColumn>& columns) {
    if (!session_) open();
    return session_->execute_bulk(sql, columns);
}

std::uint64_t Connection::connection_id() {
    auto result = query("SELECT CONNECTION_ID()");
    result.next();
    return result.uint64(1);
}

std::uint64_t Connection::session_id() {
    if (!session_) open();
    if (!session_->id) session_->id = connection_id();
    return *session_->id;
}

const ServerFlavor& Connection::server_flavor() {
    if (!session_) open();
    return session_->flavor;
}

bool Connection::alive() { return session_ && session_->alive(); }

}  // namespace rowpump::mysql
