// The Redis URLs: redis:// (TCP, or a unix socket with ?socket=), redis+unix:// (a unix socket), rediss://
// (TLS) and redis-sentinel:// (the master that sentinels name). Connection (src/redis) opens what they say.
#include <cstdlib>
#include <sstream>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "url.hpp"
#include "url_values.hpp"

namespace rowpump {

namespace {

int parse_db(const std::string& text, const std::string& url, const char* form) {
    char* end = nullptr;
    const long db = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || db < 0 || db > 1'000'000)
        throw UsageError("invalid database" + quoted_part(text, url) + " in " + redact_url(url) + ": expected " + form);
    return static_cast<int>(db);
}

// "h1:26490,h2:26491" (parse_url took the last ":port" for the port): each sentinel, 26379 when no port.
std::vector<std::pair<std::string, unsigned>> parse_sentinels(const UrlParts& parts, const std::string& url) {
    const std::string list = parts.host + (parts.port.empty() ? "" : ":" + parts.port);
    std::vector<std::pair<std::string, unsigned>> sentinels;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        const std::string item = list.substr(start, end - start);
        const auto colon = item.rfind(':');
        const std::string host = colon == std::string::npos ? item : item.substr(0, colon);
        if (host.empty())
            throw UsageError("a sentinel without a host in " + redact_url(url) +
                             ": expected redis-sentinel://host:port[,host:port...]/MASTER_NAME/db");
        sentinels.emplace_back(host, colon == std::string::npos ? 26379u : parse_port(item.substr(colon + 1), url));
        start = end + 1;
    }
    return sentinels;
}

// The ssl-* options of rediss://: the modes MySQL's URL names, less the two that allow plain text (a
// Redis port speaks TLS or not; there is no upgrade to ask for).
void check_tls(RedisOptions& options, const std::string& url) {
    if (options.ssl_mode == SslMode::disabled || options.ssl_mode == SslMode::preferred)
        throw UsageError("ssl-mode=" + std::string(options.ssl_mode == SslMode::disabled ? "DISABLED" : "PREFERRED") +
                         " in " + redact_url(url) +
                         ": rediss:// is TLS only; choose VERIFY_IDENTITY (the default), VERIFY_CA or REQUIRED, or write "
                         "redis:// for plain text");
    if (options.ssl_cert.empty() != options.ssl_key.empty())
        throw UsageError("ssl-cert and ssl-key go together in " + redact_url(url) +
                         ": give both (a client certificate and its key) or neither");
    if (options.ssl_mode == SslMode::required && !options.ssl_ca.empty())
        throw UsageError("ssl-ca in " + redact_url(url) + " is only used to verify the server: choose "
                         "ssl-mode=VERIFY_IDENTITY (or VERIFY_CA), or remove ssl-ca");
}

}  // namespace

RedisOptions RedisOptions::from_url(const std::string& url) {
    UrlParts parts = parse_url(url, {"redis", "rediss", "redis+unix", "redis-sentinel"});
    RedisOptions options;
    options.user = parts.user;
    options.password = parts.password;
    options.tls = parts.scheme == "rediss";
    const bool unix_form = parts.scheme == "redis+unix";
    const bool sentinel_form = parts.scheme == "redis-sentinel";
    if (unix_form) {
        if (!parts.host.empty() || !parts.port.empty() || parts.path.empty())
            throw UsageError("invalid unix socket URL " + redact_url(url) +
                             ": expected redis+unix:///path/to/redis.sock?db=N (the path after three slashes)");
        options.socket = "/" + parts.path;
    } else if (sentinel_form) {
        options.sentinels = parse_sentinels(parts, url);
        const auto slash = parts.path.find('/');
        options.master_name = parts.path.substr(0, slash);
        if (options.master_name.empty())
            throw UsageError("no master name in " + redact_url(url) +
                             ": expected redis-sentinel://host:port[,host:port...]/MASTER_NAME/db");
        if (slash != std::string::npos && slash + 1 < parts.path.size())
            options.db = parse_db(parts.path.substr(slash + 1), url, "redis-sentinel://host:port/MASTER_NAME/NUMBER");
    } else {
        if (!parts.host.empty()) options.host = parts.host;
        if (!parts.port.empty()) options.port = parse_port(parts.port, url);
        if (!parts.path.empty()) options.db = parse_db(parts.path, url, "redis://host:port/NUMBER");
    }
    bool ssl_given = false;
    for (const auto& [key, value] : parts.query) {
        const bool ssl_key = key.starts_with("ssl-");
        ssl_given = ssl_given || ssl_key;
        if (key == "socket" && parts.scheme == "redis") options.socket = value;
        else if (key == "db" && unix_form) options.db = parse_db(value, url, "redis+unix:///path?db=NUMBER");
        else if (key == "ssl-mode" && options.tls) options.ssl_mode = parse_ssl_mode(value, url);
        else if (key == "ssl-ca" && options.tls) options.ssl_ca = readable_file(key, value, url);
        else if (key == "ssl-cert" && options.tls) options.ssl_cert = readable_file(key, value, url);
        else if (key == "ssl-key" && options.tls) options.ssl_key = readable_file(key, value, url);
        else if (ssl_key && !options.tls)
            throw UsageError("option" + quoted_part(key, url) + " in " + redact_url(url) +
                             " is for TLS: write rediss://host:port/db?" + key + "=...");
        else
            throw UsageError("unknown option" + quoted_part(key, url) + " in " + redact_url(url) + ": expected " +
                             (unix_form     ? "db"
                              : options.tls ? "ssl-mode, ssl-ca, ssl-cert or ssl-key"
                              : sentinel_form ? "none"
                                              : "socket"));
    }
    if (options.tls) check_tls(options, url);
    options.password_from_env();
    return options;
}

std::string RedisOptions::redacted() const {
    std::ostringstream out;
    out << (!sentinels.empty() ? "redis-sentinel://" : !socket.empty() ? "redis+unix://" : tls ? "rediss://" : "redis://");
    if (!user.empty() || !password.empty()) out << percent_encode(user) << (password.empty() ? "" : ":***") << "@";
    if (!sentinels.empty()) {
        for (std::size_t i = 0; i < sentinels.size(); ++i)
            out << (i == 0 ? "" : ",") << sentinels[i].first << ":" << sentinels[i].second;
        out << "/" << master_name << "/" << db;
    } else if (!socket.empty()) {
        out << socket << "?db=" << db;
    } else {
        out << host << ":" << port << "/" << db;
    }
    return out.str();
}

}  // namespace rowpump
