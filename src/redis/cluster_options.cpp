#include "redis/cluster_options.hpp"

#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

constexpr std::string_view scheme = "redis-cluster://";
constexpr std::string_view tls_scheme = "rediss-cluster://";

UsageError malformed(const std::string& url, const std::string& problem) {
    return UsageError("malformed cluster URL " + redact_url(url) + ": " + problem +
                      "; expected redis-cluster://[user:pass@]host:port[,host:port...]/ (or rediss-cluster://...?ssl-ca=PATH)");
}

}  // namespace

ClusterOptions ClusterOptions::from_url(const std::string& url) {
    const bool tls = url.starts_with(tls_scheme);
    if (!tls && !url.starts_with(scheme)) throw malformed(url, "it does not start with " + std::string(scheme));
    std::string rest = url.substr(tls ? tls_scheme.size() : scheme.size());
    // rediss-cluster:// takes rediss://'s TLS options, which every node's connection then takes.
    std::string query;
    if (const auto mark = rest.find('?'); tls && mark != std::string::npos) {
        query = rest.substr(mark);
        rest = rest.substr(0, mark);
    }
    // The login ends at the last '@': an unescaped '@' in a password stays in it.
    std::string login;
    const auto at = rest.rfind('@');
    if (at != std::string::npos) {
        login = rest.substr(0, at + 1);
        rest = rest.substr(at + 1);
    }
    const auto slash = rest.find('/');
    const std::string hosts = rest.substr(0, slash);
    const std::string path = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (path.find('?') != std::string::npos || hosts.find('?') != std::string::npos)
        throw malformed(url, tls ? "options go after the '/'" : "a cluster URL takes no options (TLS ones: rediss-cluster://)");
    if (!path.empty() && path != "0")
        throw malformed(url, "a Redis Cluster has only database 0, not '" + path + "'");
    ClusterOptions options;
    for (std::size_t start = 0; start <= hosts.size();) {
        const auto comma = std::min(hosts.find(',', start), hosts.size());
        const std::string node = hosts.substr(start, comma - start);
        if (node.empty() || node.find(':') == std::string::npos)
            throw malformed(url, node.empty() ? "an empty node" : "node '" + node + "' has no port");
        options.seeds.push_back(RedisOptions::from_url((tls ? "rediss://" : "redis://") + login + node + "/0" + query));
        start = comma + 1;
    }
    return options;
}

std::string ClusterOptions::redacted() const {
    std::string text(!seeds.empty() && seeds[0].tls ? tls_scheme : scheme);
    if (!seeds.empty() && (!seeds[0].user.empty() || !seeds[0].password.empty()))
        text += seeds[0].user + (seeds[0].password.empty() ? "" : ":***") + "@";
    for (std::size_t i = 0; i < seeds.size(); ++i)
        text += (i == 0 ? "" : ",") + seeds[i].host + ":" + std::to_string(seeds[i].port);
    return text + "/";
}

RedisOptions ClusterOptions::node(const std::string& host, unsigned port) const {
    RedisOptions options = seeds.at(0);
    options.host = host;
    options.port = port;
    options.db = 0;
    return options;
}

}  // namespace rowpump::redis
