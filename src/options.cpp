#include "rowpump/options.hpp"

#include <cstdlib>
#include <sstream>

#include "env_secret.hpp"
#include "rowpump/error.hpp"
#include "url.hpp"
#include "url_values.hpp"

namespace rowpump {

namespace {

std::chrono::seconds parse_seconds(const std::string& key, const std::string& text, const std::string& url) {
    char* end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0)
        throw UsageError("invalid " + key + quoted_part(text, url) + " in " + redact_url(url) +
                         ": expected whole seconds");
    return std::chrono::seconds(value);
}

// The ssl-* options together: a CA only makes sense when it is used to verify, a key needs its
// certificate, and DISABLED takes none of them.
void check_tls(MySqlOptions& options, bool mode_given, const std::string& url) {
    const bool files = !options.ssl_ca.empty() || !options.ssl_cert.empty() || !options.ssl_key.empty();
    if (!mode_given && files) options.ssl_mode = SslMode::verify_identity;
    if (options.ssl_cert.empty() != options.ssl_key.empty())
        throw UsageError("ssl-cert and ssl-key go together in " + redact_url(url) +
                         ": give both (a client certificate and its key) or neither");
    const bool verifies = options.ssl_mode == SslMode::verify_ca || options.ssl_mode == SslMode::verify_identity;
    if (options.ssl_mode == SslMode::disabled && files)
        throw UsageError("ssl-mode=DISABLED in " + redact_url(url) + " takes no ssl-ca, ssl-cert or ssl-key: "
                         "remove them, or choose another ssl-mode");
    if (verifies && options.ssl_ca.empty())
        throw UsageError("ssl-mode=" +
                         std::string(options.ssl_mode == SslMode::verify_ca ? "VERIFY_CA" : "VERIFY_IDENTITY") +
                         " in " + redact_url(url) + " needs the CA to verify against: add ssl-ca=PATH (a PEM file; "
                         "/etc/ssl/certs/ca-certificates.crt for a server with a public certificate)");
    if (!verifies && !options.ssl_ca.empty())
        throw UsageError("ssl-ca in " + redact_url(url) + " is only used to verify the server: choose "
                         "ssl-mode=VERIFY_IDENTITY (or VERIFY_CA), or remove ssl-ca");
}

}  // namespace

MySqlOptions MySqlOptions::from_url(const std::string& url) {
    UrlParts parts = parse_url(url, {"mysql", "mariadb"});
    MySqlOptions options;
    if (!parts.host.empty()) options.host = parts.host;
    if (!parts.port.empty()) options.port = parse_port(parts.port, url);
    options.user = parts.user;
    options.password = parts.password;
    options.database = parts.path;
    if (options.database.find('/') != std::string::npos)
        throw UsageError("invalid database name in " + redact_url(url) + ": expected mysql://user:pass@host:port/database");
    bool ssl_mode_given = false;
    for (const auto& [key, value] : parts.query) {
        if (key == "socket") options.socket = value;
        else if (key == "connect_timeout") options.connect_timeout = parse_seconds(key, value, url);
        else if (key == "read_timeout") options.read_timeout = parse_seconds(key, value, url);
        else if (key == "write_timeout") options.write_timeout = parse_seconds(key, value, url);
        else if (key == "ssl-mode") {
            options.ssl_mode = parse_ssl_mode(value, url);
            ssl_mode_given = true;
        }
        else if (key == "ssl-ca") options.ssl_ca = readable_file(key, value, url);
        else if (key == "ssl-cert") options.ssl_cert = readable_file(key, value, url);
        else if (key == "ssl-key") options.ssl_key = readable_file(key, value, url);
        else throw UsageError("unknown option" + quoted_part(key, url) + " in " + redact_url(url) +
                              ": expected socket, connect_timeout, read_timeout, write_timeout, ssl-mode, ssl-ca, "
                              "ssl-cert or ssl-key");
        options.extra[key] = value;
    }
    check_tls(options, ssl_mode_given, url);
    if (options.user.empty())
        throw UsageError("no user in " + redact_url(url) + ": expected mysql://user:pass@host:port/database");
    options.password_from_env();
    return options;
}

MySqlOptions MySqlOptions::from_env() {
    const char* url = std::getenv("ROWPUMP_MYSQL_URL");
    if (!url || !*url) throw UsageError("no MySQL connection given: pass --mysql URL or set ROWPUMP_MYSQL_URL");
    return from_url(url);
}

void MySqlOptions::password_from_env() {
    if (password.empty()) password = secret_from_env("ROWPUMP_MYSQL_PASSWORD", "ROWPUMP_MYSQL_PASSWORD_FILE", "password");
}

std::string MySqlOptions::redacted() const {
    std::ostringstream out;
    out << "mysql://" << percent_encode(user) << (password.empty() ? "" : ":***") << "@";
    if (socket.empty()) out << host << ":" << port;
    else out << "localhost";
    out << "/" << percent_encode(database);
    char separator = '?';
    for (const auto& [key, value] : extra) {
        out << separator << key << "=" << value;
        separator = '&';
    }
    return out.str();
}

void RedisOptions::password_from_env() {
    if (password.empty()) password = secret_from_env("ROWPUMP_REDIS_PASSWORD", "ROWPUMP_REDIS_PASSWORD_FILE", "password");
}

}  // namespace rowpump
