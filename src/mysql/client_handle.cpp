#include "mysql/client_handle.hpp"

#include <mysql.h>

#include <mutex>
#include <new>

#include "mysql/connection.hpp"
#include "mysql/tls.hpp"

namespace rowpump::mysql {

namespace {

// As Connector/C++ does for its sessions (cppconn_session.cpp): enforce asks for TLS (dropped quietly when
// the server offers none: open_client_handle looks), a CA makes the library verify the chain,
// VERIFY_SERVER_CERT adds the host name check.
void set_tls_options(MYSQL* handle, const MySqlOptions& options) {
    if (options.ssl_mode == SslMode::disabled) return;
    const my_bool on = 1;
    mysql_options(handle, MYSQL_OPT_SSL_ENFORCE, &on);
    if (!options.ssl_ca.empty()) mysql_options(handle, MYSQL_OPT_SSL_CA, options.ssl_ca.c_str());
    if (!options.ssl_cert.empty()) mysql_options(handle, MYSQL_OPT_SSL_CERT, options.ssl_cert.c_str());
    if (!options.ssl_key.empty()) mysql_options(handle, MYSQL_OPT_SSL_KEY, options.ssl_key.c_str());
    if (options.ssl_mode == SslMode::verify_identity) mysql_options(handle, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
}

}  // namespace

void CloseClientHandle::operator()(st_mysql* handle) const noexcept { mysql_close(handle); }

ClientHandle open_client_handle(const MySqlOptions& options, bool nonblocking) {
    // The first call initialises the client library, which is not thread-safe.
    static std::once_flag library;
    std::call_once(library, [] { mysql_library_init(0, nullptr, nullptr); });
    ClientHandle handle(mysql_init(nullptr));
    if (!handle) throw std::bad_alloc();
    MYSQL* raw = handle.get();
    const unsigned connect_timeout = static_cast<unsigned>(options.connect_timeout.count());
    const unsigned read_timeout = static_cast<unsigned>(options.read_timeout.count());
    const unsigned write_timeout = static_cast<unsigned>(options.write_timeout.count());
    mysql_options(raw, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
    if (read_timeout > 0) mysql_options(raw, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
    if (write_timeout > 0) mysql_options(raw, MYSQL_OPT_WRITE_TIMEOUT, &write_timeout);
    mysql_options(raw, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    if (nonblocking) mysql_options(raw, MYSQL_OPT_NONBLOCK, nullptr);
    // A silent reconnect would lose the session's settings; the callers' retrying() opens a new session.
    const my_bool no_reconnect = 0;
    mysql_options(raw, MYSQL_OPT_RECONNECT, &no_reconnect);
    // "localhost" without a socket still means TCP here, as it does for Connector/C++'s tcp:// URLs.
    const unsigned protocol = options.socket.empty() ? MYSQL_PROTOCOL_TCP : MYSQL_PROTOCOL_SOCKET;
    mysql_options(raw, MYSQL_OPT_PROTOCOL, &protocol);
    set_tls_options(raw, options);
    if (!mysql_real_connect(raw, options.socket.empty() ? options.host.c_str() : "localhost", options.user.c_str(),
                            options.password.c_str(), options.database.empty() ? nullptr : options.database.c_str(),
                            options.port, options.socket.empty() ? nullptr : options.socket.c_str(), 0))
        throw_connect_error(static_cast<int>(mysql_errno(raw)), mysql_sqlstate(raw), mysql_error(raw), options);
    if (needs_tls(options) && mysql_get_ssl_cipher(raw) == nullptr) throw_tls_not_offered(options);
    // As Connector/C++ does on connecting: a server whose init_connect or global default turns autocommit
    // off would otherwise hold every statement outside a transaction guard in one long transaction, and
    // a reader's pages in one old snapshot.
    if (mysql_autocommit(raw, 1) != 0) throw_client_error(raw, "SET autocommit = 1", options);
    return handle;
}

std::string server_version(st_mysql* handle) {
    const char* version = mysql_get_server_info(handle);
    return version ? version : "";
}

void run_text(st_mysql* handle, const std::string& sql, const MySqlOptions& options) {
    if (mysql_real_query(handle, sql.data(), sql.size()) != 0) throw_client_error(handle, sql, options);
}

void throw_client_error(st_mysql* handle, const std::string& sql, const MySqlOptions& options) {
    throw_server_error(static_cast<int>(mysql_errno(handle)), mysql_sqlstate(handle), mysql_error(handle), sql,
                       options);
}

std::string quote_string(st_mysql* handle, std::string_view value) {
    std::string quoted(value.size() * 2 + 2, '\0');
    quoted[0] = '\'';
    const auto length =
        mysql_real_escape_string(handle, quoted.data() + 1, value.data(), static_cast<unsigned long>(value.size()));
    quoted.resize(length + 2);
    quoted[length + 1] = '\'';
    return quoted;
}

}  // namespace rowpump::mysql
