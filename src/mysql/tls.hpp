#pragma once
// TLS for both MySQL drivers: what a failed connection means when TLS played a part. Each driver turns
// MySqlOptions::ssl_mode into its own options (connection.cpp, stream_connection.cpp); the client
// library both of them run on is MariaDB Connector/C, so they fail the same way.
#include <optional>
#include <string>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

namespace rowpump::mysql {

// "VERIFY_IDENTITY" and so on, as the URL writes it.
std::string ssl_mode_name(SslMode mode);

// A connect error that TLS explains, as the one line to show; nullopt when TLS is not the cause.
// - CR_SSL_CONNECTION_ERROR (2026): the handshake or the certificate check failed: says which check and
//   what to change in the URL.
// - A connection lost or a TLS error at connect with ssl-cert and ssl-key given, when the same TLS without
//   them gets in (one more connection, only then): the client's pair is the cause, and the line names it
//   (a key that is not the certificate's, or a certificate the server does not trust).
// - Access denied (1045) on a connection without TLS: when the same account gets in over TLS, the server
//   requires TLS (require_secure_transport, or an account made with REQUIRE SSL), and the line says so
//   instead of "check the password". Finding out costs one more connection, only after such a refusal;
//   it runs the same challenge-response login, over TLS, that the plain connection already ran.
std::optional<std::string> explain_tls_failure(int code, const std::string& what, const MySqlOptions& options);

// Connector/C quietly goes on without TLS when the server offers none, whatever it was asked: each driver
// looks after connecting, and from REQUIRED up a plain session is closed with this line.
bool needs_tls(const MySqlOptions& options);
[[noreturn]] void throw_tls_not_offered(const MySqlOptions& options);

}  // namespace rowpump::mysql
