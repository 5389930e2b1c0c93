// Connection's default driver, MySQL Connector/C++: prepared statements (cached per session), values bound
// by type, results copied out cell by cell in the server's text form.
#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <mutex>
#include <unordered_map>

#include "mysql/driver_session.hpp"
#include "mysql/tls.hpp"

namespace rowpump::mysql {

namespace {

sql::mysql::MySQL_Driver& driver() {
    // The first call initialises the client library, which is not thread-safe.
    static std::once_flag once;
    static sql::mysql::MySQL_Driver* instance = nullptr;
    std::call_once(once, [] { instance = sql::mysql::get_mysql_driver_instance(); });
    return *instance;
}

// Converts a driver exception into the rowpump error it means. `sql` is the statement that failed.
[[noreturn]] void throw_driver_error(const sql::SQLException& error, const std::string& sql,
                                     const MySqlOptions& options) {
    throw_server_error(error.getErrorCode(), error.getSQLState(), error.what(), sql, options);
}

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
// quietly when the server offers none: the constructor looks), sslCA makes it verify the certificate
// chain, sslVerify adds the host name check.
void add_tls_options(sql::ConnectOptionsMap& map, const MySqlOptions& options) {
    if (options.ssl_mode == SslMode::disabled) return;
    map["sslEnforce"] = true;
    if (!options.ssl_ca.empty()) map["sslCA"] = sql::SQLString(options.ssl_ca);
    if (!options.ssl_cert.empty()) map["sslCert"] = sql::SQLString(options.ssl_cert);
    if (!options.ssl_key.empty()) map["sslKey"] = sql::SQLString(options.ssl_key);
    if (options.ssl_mode == SslMode::verify_identity) map["sslVerify"] = true;
}

sql::ConnectOptionsMap connect_options(const MySqlOptions& options) {
    sql::ConnectOptionsMap map;
    if (options.socket.empty()) {
        // An IPv6 address goes in brackets, or its colons would be read as the port's.
        const bool ipv6 = options.host.find(':') != std::string::npos;
        map["hostName"] = sql::SQLString("tcp://" + (ipv6 ? "[" + options.host + "]" : options.host) + ":" +
                                         std::to_string(options.port));
    } else {
        map["hostName"] = sql::SQLString("unix://" + options.socket);
    }
    map["userName"] = sql::SQLString(options.user);
    map["password"] = sql::SQLString(options.password);
    if (!options.database.empty()) map["schema"] = sql::SQLString(options.database);
    map["OPT_CONNECT_TIMEOUT"] = static_cast<int>(options.connect_timeout.count());
    if (options.read_timeout.count() > 0) map["OPT_READ_TIMEOUT"] = static_cast<int>(options.read_timeout.count());
    if (options.write_timeout.count() > 0) map["OPT_WRITE_TIMEOUT"] = static_cast<int>(options.write_timeout.count());
    map["OPT_RECONNECT"] = false;  // a silent reconnect would lose session state; we reconnect ourselves
    map["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    add_tls_options(map, options);
    return map;
}

class CppConnSession final : public DriverSession {
public:
    explicit CppConnSession(const MySqlOptions& options) : options_(options) {
        auto map = connect_options(options);
        try {
            connection_.reset(driver().connect(map));
        } catch (const sql::SQLException& error) {
            throw_connect_error(error.getErrorCode(), error.getSQLState(), error.what(), options);
        }
        // Connector/C++ does not say whether the session it opened is encrypted: the server does.
        if (needs_tls(options)) {
            Rows cipher = query("SHOW SESSION STATUS LIKE 'Ssl_cipher'", {});
            if (!cipher.next() || cipher.text(2).empty()) throw_tls_not_offered(options);
        }
        // Nor does it hand over the handshake's version string without its metadata object, which asks the
        // server for more than that.
        Rows version = query("SELECT VERSION()", {});
        flavor = ServerFlavor::parse(version.next() ? version.text(1) : std::string());
    }

    Rows query(const std::string& sql, const std::vector<Param>& params) override {
        auto& statement = prepare(sql);
        try {
            bind(statement, params);
            std::unique_ptr<sql::ResultSet> result(statement.executeQuery());
            return copy_rows(*result);
        } catch (const sql::SQLException& error) {
            throw_driver_error(error, sql, options_);
        }
    }

    std::uint64_t execute(const std::string& sql, const std::vector<Param>& params) override {
        auto& statement = prepare(sql);
        try {
            bind(statement, params);
            return static_cast<std::uint64_t>(statement.executeUpdate());
        } catch (const sql::SQLException& error) {
            throw_driver_error(error, sql, options_);
        }
    }

    void execute_text(const std::string& sql) override {
        try {
            std::unique_ptr<sql::Statement> statement(connection_->createStatement());
            statement->execute(sql);
        } catch (const sql::SQLException& error) {
            throw_driver_error(error, sql, options_);
        }
    }

    bool alive() noexcept override {
        try {
            return connection_->isValid();
        } catch (...) {
            return false;
        }
    }

private:
    sql::PreparedStatement& prepare(const std::string& sql) {
        auto found = statements_.find(sql);
        if (found != statements_.end()) return *found->second;
        try {
            auto [inserted, _] = statements_.emplace(sql, connection_->prepareStatement(sql));
            return *inserted->second;
        } catch (const sql::SQLException& error) {
            throw_driver_error(error, sql, options_);
        }
    }

    MySqlOptions options_;  // a copy: the Connection that owns this session may move
    std::unique_ptr<sql::Connection> connection_;
    // Declared after the connection, so they are closed before it.
    std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> statements_;
};

}  // namespace

std::unique_ptr<DriverSession> open_cppconn_session(const MySqlOptions& options) {
    return std::make_unique<CppConnSession>(options);
}

}  // namespace rowpump::mysql
