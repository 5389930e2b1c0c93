#pragma once
// Where a Connection's socket goes: the server the URL names (TCP or a unix socket, TLS for rediss://),
// or for redis-sentinel:// the master that its sentinels name right now.
#include <memory>
#include <string>
#include <utility>

#include "redis/stream.hpp"
#include "rowpump/options.hpp"

namespace rowpump::redis {

// The socket to host:port (or options.socket), wrapped in TLS when options.tls; its handshake is not
// done yet (Stream::handshake). Throws StreamLost when the server cannot be reached, UsageError for TLS
// files that cannot be used.
std::unique_ptr<Stream> open_stream(const RedisOptions& options, const std::string& host, unsigned port);

// Asks each sentinel in turn (SENTINEL get-master-addr-by-name) for the address of options.master_name.
// Throws a transient QueueError that says what each sentinel answered when none names one (they may be
// restarting, or a failover under way); the first connection of a run makes that a UsageError.
std::pair<std::string, unsigned> master_from_sentinels(const RedisOptions& options);

}  // namespace rowpump::redis
