#pragma once
// A session of MariaDB Connector/C, the C library beneath Connector/C++, opened as every rowpump session
// is: the options' timeouts, TLS and utf8mb4, no silent reconnect. Two callers use the library directly:
// the streaming reader (stream_connection.cpp) and the Connector/C backend of Connection
// (client_session.cpp), which the queue writers take for array binding. The driver's types stay in
// src/mysql: this header names its handle only by a forward declaration.
#include <memory>
#include <string>
#include <string_view>

#include "rowpump/options.hpp"

struct st_mysql;  // MYSQL

namespace rowpump::mysql {

struct CloseClientHandle {
    void operator()(st_mysql* handle) const noexcept;
};
using ClientHandle = std::unique_ptr<st_mysql, CloseClientHandle>;

// Connects; throws as Connection does (throw_connect_error, throw_tls_not_offered). `nonblocking` turns on
// the driver's non-blocking calls as well (the blocking ones keep working on such a handle). The session
// settings (apply_session_settings) are the caller's to apply.
ClientHandle open_client_handle(const MySqlOptions& options, bool nonblocking);

// The server's version string from the handshake ("10.11.6-MariaDB-0+deb12u1"; ServerFlavor::parse reads it).
std::string server_version(st_mysql* handle);

// Runs `sql` through the text protocol; a failure throws as throw_server_error says.
void run_text(st_mysql* handle, const std::string& sql, const MySqlOptions& options);

// Throws the handle's last error for `sql` as rowpump's own (throw_server_error).
[[noreturn]] void throw_client_error(st_mysql* handle, const std::string& sql, const MySqlOptions& options);

// `value` as a string literal, escaped by the driver for the session's character set.
std::string quote_string(st_mysql* handle, std::string_view value);

}  // namespace rowpump::mysql
