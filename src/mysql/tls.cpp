#include "mysql/tls.hpp"

#include <mysql.h>

#include <memory>

#include "mysql/client_handle.hpp"
#include "mysql/error_codes.hpp"
#include "url.hpp"

namespace rowpump::mysql {

namespace {

constexpr int access_denied = 1045;

struct HandleClose {
    void operator()(MYSQL* handle) const noexcept { mysql_close(handle); }
};

// Whether the account logs in when TLS is used (encrypted, nothing verified): one short connection.
bool logs_in_over_tls(const MySqlOptions& options) {
    std::unique_ptr<MYSQL, HandleClose> handle(mysql_init(nullptr));
    if (!handle) return false;
    const unsigned timeout = static_cast<unsigned>(options.connect_timeout.count());
    const my_bool on = 1;
    const unsigned protocol = MYSQL_PROTOCOL_TCP;
    mysql_options(handle.get(), MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_options(handle.get(), MYSQL_OPT_PROTOCOL, &protocol);
    mysql_options(handle.get(), MYSQL_OPT_SSL_ENFORCE, &on);
    return mysql_real_connect(handle.get(), options.host.c_str(), options.user.c_str(), options.password.c_str(),
                              options.database.empty() ? nullptr : options.database.c_str(), options.port, nullptr,
                              0) != nullptr;
}

// Whether the client's certificate and key are what failed: the same TLS, without them, gets as far as
// the login (a server refusal, such as an account that REQUIRE X509, counts). One short connection.
bool fails_only_with_the_client_pair(const MySqlOptions& options) {
    MySqlOptions without = options;
    without.ssl_cert.clear();
    without.ssl_key.clear();
    without.retry_budget = std::chrono::seconds(0);
    try {
        open_client_handle(without, false);
        return true;
    } catch (const DbError& error) {
        return error.code() > 0 && error.code() < 2000;
    } catch (const Error&) {
        return false;
    }
}

// The server answered, then the session ended or its TLS failed: not a server that cannot be reached.
bool ended_after_connecting(int code) {
    return code == codes::tls_error || code == codes::lost_during_query || code == codes::server_gone ||
           code == codes::lost_extended;
}

// The one line for a client certificate or key that broke the connection, naming the pair.
std::string client_pair_failure(const std::string& what, const MySqlOptions& options) {
    const std::string head = "TLS to " + options.redacted() + " failed (ssl-mode=" + ssl_mode_name(options.ssl_mode) +
                             "): " + redact_url(what);
    // OpenSSL's words when the key is not the certificate's (X509_R_KEY_VALUES_MISMATCH).
    if (what.find("key values mismatch") != std::string::npos || what.find("private key") != std::string::npos)
        return head + " (the client's key ssl-key=" + options.ssl_key + " is not the key of its certificate ssl-cert=" +
               options.ssl_cert + "; give the key the certificate was made with)";
    return head + " (the server refused the client certificate ssl-cert=" + options.ssl_cert +
           ": it must be signed by a CA that the server trusts, its ssl-ca; or leave ssl-cert and ssl-key out)";
}

std::string verification_hint(const MySqlOptions& options) {
    switch (options.ssl_mode) {
        case SslMode::verify_identity:
            return "the server's certificate must chain to the CA in ssl-ca=" + options.ssl_ca + " and name the host " +
                   options.host + " (a SAN of the certificate); ssl-mode=VERIFY_CA skips the name check";
        case SslMode::verify_ca:
            return "the server's certificate must chain to the CA in ssl-ca=" + options.ssl_ca;
        case SslMode::preferred:
        case SslMode::required:
            return "the server must offer TLS: see its have_ssl variable";
        case SslMode::disabled:
            break;
    }
    return "check the ssl-* options of the URL";
}

}  // namespace

std::string ssl_mode_name(SslMode mode) {
    switch (mode) {
        case SslMode::disabled: return "DISABLED";
        case SslMode::preferred: return "PREFERRED";
        case SslMode::required: return "REQUIRED";
        case SslMode::verify_ca: return "VERIFY_CA";
        case SslMode::verify_identity: return "VERIFY_IDENTITY";
    }
    return "DISABLED";
}

bool needs_tls(const MySqlOptions& options) {
    return options.ssl_mode != SslMode::disabled && options.ssl_mode != SslMode::preferred;
}

void throw_tls_not_offered(const MySqlOptions& options) {
    throw AccessDenied("TLS to " + options.redacted() + " failed (ssl-mode=" + ssl_mode_name(options.ssl_mode) +
                           "): the server offers no TLS (its have_ssl is not YES), and the session would be plain; "
                           "enable TLS on the server, or choose ssl-mode=PREFERRED to accept a plain session",
                       codes::tls_error, "HY000", "");
}

std::optional<std::string> explain_tls_failure(int code, const std::string& what, const MySqlOptions& options) {
    // A server that rejects the client's certificate may close the socket before the driver reads its alert:
    // a lost connection (2013, "system error: 104") rather than a TLS error.
    if (!options.ssl_cert.empty() && ended_after_connecting(code) && fails_only_with_the_client_pair(options))
        return client_pair_failure(what, options);
    // A handshake nobody answered (a frozen server, a dropped network) timed out: the network, not the
    // certificate, and retried as any connect that times out.
    if (code == codes::tls_error && options.ssl_mode != SslMode::disabled &&
        what.find("timed out") == std::string::npos)
        return "TLS to " + options.redacted() + " failed (ssl-mode=" + ssl_mode_name(options.ssl_mode) +
               "): " + redact_url(what) + " (" + verification_hint(options) + ")";
    if (code == access_denied && options.ssl_mode == SslMode::disabled && options.socket.empty() &&
        logs_in_over_tls(options))
        return "MySQL at " + options.redacted() + " requires TLS for this account and refused the plain "
               "connection (" + redact_url(what) + "): add ssl-mode=VERIFY_IDENTITY&ssl-ca=PATH-TO-CA.pem to the "
               "URL (or ssl-mode=REQUIRED to encrypt without verifying the server)";
    return std::nullopt;
}

}  // namespace rowpump::mysql
