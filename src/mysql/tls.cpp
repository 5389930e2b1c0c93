#include "mysql/tls.hpp"

#include <mysql.h>

#include <memory>

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
    if (code == codes::tls_error && options.ssl_mode != SslMode::disabled)
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
