#include "rowpump/options.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rowpump/error.hpp"
#include "url.hpp"

namespace rowpump {

namespace {

// The whole file but one trailing line end ("\n" or "\r\n", as editors on either system leave it): a
// password may itself end in spaces. A directory or an unreadable file is an error, never "no password".
std::string read_secret_file(const std::string& path, const char* variable) {
    const auto fail = [&](const std::string& why) {
        throw UsageError(std::string("cannot read the password file named by ") + variable + " (" + path + "): " + why);
    };
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) fail("it is a directory; expected a file holding the password");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) fail(std::strerror(errno));
    std::string secret = text.str();
    if (secret.ends_with("\r\n")) secret.resize(secret.size() - 2);
    else if (secret.ends_with('\n')) secret.pop_back();
    return secret;
}

std::string password_from(const char* variable, const char* file_variable) {
    if (const char* value = std::getenv(variable); value && *value) return value;
    if (const char* file = std::getenv(file_variable)) return read_secret_file(file, file_variable);
    return {};
}

unsigned parse_port(const std::string& text, const std::string& url) {
    char* end = nullptr;
    unsigned long port = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || port == 0 || port > 65535)
        throw UsageError("invalid port" + quoted_part(text, url) + " in " + redact_url(url) +
                         ": expected a number 1-65535");
    return static_cast<unsigned>(port);
}

std::chrono::seconds parse_seconds(const std::string& key, const std::string& text, const std::string& url) {
    char* end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0)
        throw UsageError("invalid " + key + quoted_part(text, url) + " in " + redact_url(url) +
                         ": expected whole seconds");
    return std::chrono::seconds(value);
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
    for (const auto& [key, value] : parts.query) {
        if (key == "socket") options.socket = value;
        else if (key == "connect_timeout") options.connect_timeout = parse_seconds(key, value, url);
        else if (key == "read_timeout") options.read_timeout = parse_seconds(key, value, url);
        else if (key == "write_timeout") options.write_timeout = parse_seconds(key, value, url);
        else throw UsageError("unknown option" + quoted_part(key, url) + " in " + redact_url(url) +
                              ": expected socket, connect_timeout, read_timeout or write_timeout");
        options.extra[key] = value;
    }
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
    if (password.empty()) password = password_from("ROWPUMP_MYSQL_PASSWORD", "ROWPUMP_MYSQL_PASSWORD_FILE");
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

RedisOptions RedisOptions::from_url(const std::string& url) {
    UrlParts parts = parse_url(url, {"redis"});
    RedisOptions options;
    if (!parts.host.empty()) options.host = parts.host;
    if (!parts.port.empty()) options.port = parse_port(parts.port, url);
    options.user = parts.user;
    options.password = parts.password;
    if (!parts.path.empty()) {
        char* end = nullptr;
        long db = std::strtol(parts.path.c_str(), &end, 10);
        if (*end != '\0' || db < 0)
            throw UsageError("invalid database" + quoted_part(parts.path, url) + " in " + redact_url(url) +
                             ": expected redis://host:port/NUMBER");
        options.db = static_cast<int>(db);
    }
    for (const auto& [key, value] : parts.query) {
        if (key == "socket") options.socket = value;
        else throw UsageError("unknown option" + quoted_part(key, url) + " in " + redact_url(url) +
                              ": expected socket");
    }
    options.password_from_env();
    return options;
}

void RedisOptions::password_from_env() {
    if (password.empty()) password = password_from("ROWPUMP_REDIS_PASSWORD", "ROWPUMP_REDIS_PASSWORD_FILE");
}

std::string RedisOptions::redacted() const {
    std::ostringstream out;
    out << "redis://";
    if (!user.empty() || !password.empty())
        out << percent_encode(user) << (password.empty() ? "" : ":***") << "@";
    if (socket.empty()) out << host << ":" << port;
    else out << "localhost";
    out << "/" << db;
    if (!socket.empty()) out << "?socket=" << socket;
    return out.str();
}

}  // namespace rowpump
