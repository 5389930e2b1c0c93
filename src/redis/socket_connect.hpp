#pragma once
// Opening the socket under a Redis connection: TCP to a host and port (each address the name resolves
// to, in turn) or a unix socket. The socket is non-blocking (Connection waits on it with poll(2)) and
// close-on-exec (a command that `queue consume --exec` starts must not keep the session alive).
#include <chrono>
#include <string>

#include "redis/stream.hpp"

namespace rowpump::redis {

// Each waits at most `timeout` (0: as long as the system does). Throws StreamLost with the cause
// ("Connection refused", "No such file or directory", "timed out after 5000 ms").
SocketFd connect_tcp(const std::string& host, unsigned port, std::chrono::milliseconds timeout);
SocketFd connect_unix(const std::string& path, std::chrono::milliseconds timeout);

}  // namespace rowpump::redis
