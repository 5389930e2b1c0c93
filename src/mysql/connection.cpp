#include "mysql/connection.hpp"

#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <mutex>
#include <random>
#include <thread>

#include "log.hpp"
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

bool is_connection_loss(int code) {
    return code == 2006 || code == 2013 || code == 2055 || code == 1927 || code == 1053 || code == 2002 ||
           code == 2003 || code == 2005;
}

std::chrono::milliseconds backoff(int attempt) {
    static thread_local std::mt19937 random{std::random_device{}()};
    const auto capped = std::min(attempt, 6);
    const auto base = std::chrono::milliseconds(100) * (1 << capped);
    std::uniform_int_distribution<long> jitter(0, base.count() / 2);
    return base + std::chrono::milliseconds(jitter(random));
}

void bind(sql::PreparedStatement& statement, const std::vector<Param>& params) {
    for (unsigned i = 0; i < params.size(); ++i) {
        const unsigned index = i + 1;
        if (auto s = std::get_if<std::int64_t>(&params[i])) statement.setInt64(index, *s);
        else if (auto u = std::get_if<std::uint64_t>(&params[i])) statement.setUInt64(index, *u);
        else statement.setString(index, std::get<std::string>(params[i]));
    }
}

}  // namespace

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
    std::string message = redact_url(driver_error.what());
    if (code == 1045 || code == 1044 || code == 1049 || code == 1698)
        throw AccessDenied("MySQL refused " + options.redacted() + ": " + message +
                               " (check the user, password and database in the URL)",
                           code, state, sql);
    if (is_connection_loss(code))
        throw ConnectionLost("MySQL connection to " + options.redacted() + " lost: " + message, code, state, sql);
    throw DbError("MySQL error " + std::to_string(code) + " (" + state + "): " + message, code, state, sql);
}

Connection::Connection(MySqlOptions options) : options_(std::move(options)) { open(); }
Connection::~Connection() = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

void Connection::open() {
    statements_.clear();
    connection_.reset();
    sql::ConnectOptionsMap map;
    if (options_.socket.empty()) {
        map["hostName"] = sql::SQLString("tcp://" + options_.host + ":" + std::to_string(options_.port));
    } else {
        map["hostName"] = sql::SQLString("unix://" + options_.socket);
    }
    map["userName"] = sql::SQLString(options_.user);
    map["password"] = sql::SQLString(options_.password);
    if (!options_.database.empty()) map["schema"] = sql::SQLString(options_.database);
    map["OPT_CONNECT_TIMEOUT"] = static_cast<int>(options_.connect_timeout.count());
    if (options_.read_timeout.count() > 0) map["OPT_READ_TIMEOUT"] = static_cast<int>(options_.read_timeout.count());
    map["OPT_RECONNECT"] = false;  // a silent reconnect would lose session state; we reconnect ourselves
    map["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    try {
        connection_.reset(driver().connect(map));
    } catch (const sql::SQLException& error) {
        if (is_connection_loss(error.getErrorCode()))
            throw ConnectionLost("cannot connect to MySQL at " + options_.redacted() + ": " + error.what() +
                                     " (is the server running? check host and port)",
                                 error.getErrorCode(), error.getSQLState(), "");
        throw_db_error(error, "", options_);
    }
}

void Connection::reconnect(int attempts) {
    for (int attempt = 1;; ++attempt) {
        try {
            open();
            return;
        } catch (const Error& error) {
            if (!error.is_transient() || attempt >= attempts) throw;
            const auto wait = backoff(attempt);
            log().warn("reconnect to {} failed ({}); retrying in {} ms", options_.redacted(), error.what(),
                       wait.count());
            std::this_thread::sleep_for(wait);
        }
    }
}

void Connection::recover_from(const Error& error, int attempt) {
    const auto wait = backoff(attempt);
    log().warn("{}; retrying in {} ms", error.what(), wait.count());
    std::this_thread::sleep_for(wait);
    if (dynamic_cast<const ConnectionLost*>(&error) || !connection_ || !alive()) reconnect();
}

sql::PreparedStatement& Connection::prepare(const std::string& sql) {
    auto found = statements_.find(sql);
    if (found != statements_.end()) return *found->second;
    if (!connection_) open();
    try {
        auto [inserted, _] = statements_.emplace(sql, connection_->prepareStatement(sql));
        return *inserted->second;
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
}

std::unique_ptr<sql::ResultSet> Connection::query(const std::string& sql, const std::vector<Param>& params) {
    auto& statement = prepare(sql);
    try {
        bind(statement, params);
        return std::unique_ptr<sql::ResultSet>(statement.executeQuery());
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
}

std::uint64_t Connection::execute(const std::string& sql, const std::vector<Param>& params) {
    auto& statement = prepare(sql);
    try {
        bind(statement, params);
        return static_cast<std::uint64_t>(statement.executeUpdate());
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
}

void Connection::execute_text(const std::string& sql) {
    if (!connection_) open();
    try {
        std::unique_ptr<sql::Statement> statement(connection_->createStatement());
        statement->execute(sql);
    } catch (const sql::SQLException& error) {
        throw_db_error(error, sql, options_);
    }
}

std::uint64_t Connection::connection_id() {
    auto result = query("SELECT CONNECTION_ID()");
    result->next();
    return result->getUInt64(1);
}

bool Connection::alive() {
    if (!connection_) return false;
    try {
        return connection_->isValid();
    } catch (const sql::SQLException&) {
        return false;
    }
}

}  // namespace rowpump::mysql
