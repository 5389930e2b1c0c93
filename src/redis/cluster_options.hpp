#pragma once
// Where a Redis Cluster is: redis-cluster://[user:pass@]host:port[,host:port...]/ names a few of its nodes
// (seeds); the client asks any of them for the slot map and finds the others there. Over TLS:
// rediss-cluster://host:port[,...]/?ssl-ca=..&ssl-cert=..&ssl-key=..&ssl-mode=.., rediss://'s options, which
// every node's connection takes (the nodes' addresses come from the slot map, which names TLS ports to
// a cluster that serves TLS only).
#include <string>
#include <vector>

#include "rowpump/options.hpp"

namespace rowpump::redis {

struct ClusterOptions {
    // Each seed's connection options: host and port, the URL's user and password, database 0 (a cluster
    // has no other), and the timeouts and retry budget every node's connection then takes.
    std::vector<RedisOptions> seeds;

    // Throws UsageError for a malformed URL: no node, a node without a port, a database other than 0, options
    // (rediss-cluster:// takes rediss://'s).
    static ClusterOptions from_url(const std::string& url);
    // The seeds with the password hidden: "redis-cluster://127.0.0.1:6501,127.0.0.1:6502/".
    std::string redacted() const;
    // The options of another node of the cluster: the seeds' login and timeouts, its host and port.
    RedisOptions node(const std::string& host, unsigned port) const;
};

}  // namespace rowpump::redis
