#include "mysql/connection.hpp"

#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <cctype>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "log.hpp"
#include "mysql/error_codes.hpp"
#include "mysql/tls.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

sql::mysql::MySQL_Driver& driver() {
    // The first call initialises the client library, which is not thread-safe.
    static std::once_flag once;
    static sql::mysql::MySQL_Driver* instance = nullptr;
    std::call_once(once, [] { instance = sql::mysql::get_mysql_driver_instance(); });
    return *instance;
}

constexpr int unknown_system_variable = 1193;
constexpr int statement_timeout_mariadb = 1969;  // max_statement_time exceeded
constexpr int statement_timeout_mysql = 3024;    // max_execution_time exceeded

void bind(sql::PreparedStatement& statement, const std::vector<Param>& params) {
    for (unsigned i = 0; i < params.size(); ++i) {
        const unsigned index = i + 1;
        if (auto s = std::get_if<std::int64_t>(&params[i])) statement.setInt64(index, *s);
        else if (auto u = std::get_if<std::uint64_t>(&params[i])) statement.setUInt64(index, *u);
        else statement.setString(index, std::get<std::string>(params[i]));
    }
}

// Copies a driver result into rowpump's own, cell by cell in the server's text form.
Rows copy_rows(sql::ResultSet& result) {
    auto* metadata = result.getMetaData();
    const auto width = metadata->getColumnCount();
    std::vector<std::string> labels;
    labels.reserve(width);
    for (unsigned column = 1; column <= width; ++column) labels.push_back(metadata->getColumnLabel(column));
    std::vector<Rows::Row> rows;
    while (result.next()) {
        Rows::Row& row = rows.emplace_back();
        row.reserve(width);
        for (unsigned column = 1; column <= width; ++column) {
            if (result.isNull(column)) row.emplace_back(std::nullopt);
            else row.emplace_back(result.getString(column));
        }
    }
    return Rows(std::move(labels), std::move(rows));
}

// Connector/C++ hands these to MariaDB Connector/C: sslEnforce asks for TLS (which the library drops
// quietly when the server offers none: open() looks), sslCA makes it verify the certificate chain,
// sslVerify adds the host name check.
void add_tls_options(sql::ConnectOptionsMap& map, const MySqlOptions& options) {
    if (options.ssl_mode == SslMode::disabled) return;
    map["sslEnforce"] = true;
    if (!options.ssl_ca.empty()) map["sslCA"] = sql::SQLString(options.ssl_ca);
    if (!options.ssl_cert.empty()) map["sslCert"] = sql::SQLString(options.ssl_cert);
    if (!options.ssl_key.empty()) map["sslKey"] = sql::SQLString(options.ssl_key);
    if (options.ssl_mode == SslMode::verify_identity) map["sslVerify"] = true;
}

}  // namespace

struct Connection::Session {
    std::unique_ptr<sql::Connection> connection;
    std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements;
    std::optional<std::uint64_t> id;  // CONNECTION_ID(), once asked

    sql::PreparedStatement& prepare(const std::string& sql, const MySqlOptions& options) {
        auto found = statements.find(sql);
        if (found != statements.end()) return *found->second;
        try {
            auto [inserted, _] = statements.emplace(sql, connection->prepareStatement(sql));
            return *inserted->second;
        } catch (const sql::SQLException& error) {
            throw_db_error(error, sql, options);
        }
    }
};

std::string quote_identifier(const std::string& name) {
    std::string out = "`";
    for (char c : name) {
        if (c == '`') out += '`';
        out += c;
    }
    return out + "`";
}

void throw_db_error(const std::exception& driver_error, const std::string& sql, const MySqlOptions& options) {
    const auto* error = dynamic_cast<const sql::SQLException*>(&driver_error);
    const int code = error ? error->getErrorCode() : 0;
    const std::string state = error ? error->getSQLState() : std::string("HY000");
    throw_server_error(code, state, driver_error.what(), sql, options);
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
                      code, state, sql);
    if (codes::is_connection_loss(code))
        throw ConnectionLost("MySQL connection to " + options.redacted() + " lost: " + message, code, state, sql);
    throw DbError("MySQL error " + std::to_string(code) + " (" + state + "): " + message, code, state, sql);
}

void throw_connect_error(int code, const std::string& state, const std::string& what, const MySqlOptions& options) {
    if (auto line = explain_tls_failure(code, what, options)) throw AccessDenied(*line, code, state, "");
    if (codes::is_connection_loss(code))
        throw ConnectionLost("cannot connect to MySQL at " + options.redacted() + ": " + redact_url(what) +
                                 " (is the server running? check host and port)",
                             code, state, "");
    throw_server_error(code, state, what, "", options);
}

Connection::Connection(MySqlOptions options) : options_(std::move(options)) { open(); }
Connection::~Connection() = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

void Connection::open() {
    session_.reset();
    sql::ConnectOptionsMap map;
    if (options_.socket.empty()) {
        // An IPv6 address goes in brackets, or its colons would be read as the port's.
        const bool ipv6 = options_.host.find(':') != std::string::npos;
        map["hostName"] = sql::SQLString("tcp://" + (ipv6 ? "[" + options_.host + "]" : options_.host) + ":" +
                                         std::to_string(options_.port));
    } else {
        map["hostName"] = sql::SQLString("unix://" + options_.socket);
    }
    map["userName"] = sql::SQLString(options_.user);
    map["password"] = sql::SQLString(options_.password);
    if (!options_.database.empty()) map["schema"] = sql::SQLString(options_.database);
    map["OPT_CONNECT_TIMEOUT"] = static_cast<int>(options_.connect_timeout.count());
    if (options_.read_timeout.count() > 0) map["OPT_READ_TIMEOUT"] = static_cast<int>(options_.read_timeout.count());
    if (options_.write_timeout.count() > 0)
        map["OPT_WRITE_TIMEOUT"] = static_cast<int>(options_.write_timeout.count());
    map["OPT_RECONNECT"] = false;  // a silent reconnect would lose session state; we reconnect ourselves
    map["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    add_tls_options(map, options_);
    try {
        auto session = std::make_unique<Session>();
        session->connection.reset(driver().connect(map));
        session_ = std::move(session);
    } catch (const sql::SQLException& error) {
        throw_connect_error(error.getErrorCode(), error.getSQLState(), error.what(), options_);
    }
    if (needs_tls(options_)) {
        auto cipher = query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
        if (!cipher.next() || cipher.text(2).empty()) {
            session_.reset();
            throw_tls_not_offered(options_);
        }
    }
    apply_session_settings(options_, [this](const std::string& sql) { execute_text(sql); });
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

void apply_session_settings(const MySqlOptions& options, const std::function<void(const std::string&)>& run) {
    // TIMESTAMP values reach the client in the session's zone: in UTC they can be written with a Z,
    // whatever zone the server runs in. DATETIME values are not converted by any zone.
    run("SET SESSION time_zone = '+00:00'");
    if (options.statement_timeout.count() > 0) {
        const std::string seconds = std::to_string(options.statement_timeout.count());
        try {
            run("SET SESSION max_statement_time = " + seconds);  // MariaDB
        } catch (const DbError& error) {
            if (error.code() != unknown_system_variable) throw;
            run("SET SESSION max_execution_time = " + seconds + "000");  // MySQL: milliseconds
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
            throw UsageError("the server refused the session variable " + name + "=" + value +
                             " (--set-vars, set_vars): " + redact_url(error.what()) + "; correct or remove it");
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
    auto& statement = session_->prepare(sql, options_);
    try {
        bind(statement, params);
        std::unique_ptr<sql::ResultSet> result(statement.executeQuery());
        return copy_rows(*result);
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
}

std::uint64_t Connection::execute(const std::string& sql, const std::vector<Param>& params) {
    if (!session_) open();
    auto& statement = session_->prepare(sql, options_);
    try {
        bind(statement, params);
        return static_cast<std::uint64_t>(statement.executeUpdate());
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
}

void Connection::execute_text(const std::string& sql) {
    if (!session_) open();
    try {
        std::unique_ptr<sql::Statement> statement(session_->connection->createStatement());
        statement->execute(sql);
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
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

bool Connection::alive() {
    if (!session_) return false;
    try {
        return session_->connection->isValid();
    } catch (const sql::SQLException&) {
        return false;
    }
}

}  // namespace rowpump::mysql
