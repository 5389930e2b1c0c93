#pragma once
// The listening socket of the HTTP endpoint: HOST:PORT parsed, resolved and bound, each failure a
// UsageError that names the flag, says what is wrong and what to do.
#include <string>
#include <utility>

#include "config/option_schema.hpp"

namespace rowpump::http {

// Splits HOST:PORT ([v6]:PORT too); PORT or :PORT alone is 127.0.0.1: the endpoint controls the run
// and shows it to whoever reaches it, so it is reachable from elsewhere only when a host says so. `flag` names
// the option in the error. Throws UsageError.
std::pair<std::string, int> parse_address(const std::string& address, config::OptionId flag);

struct ListenSocket {
    int fd = -1;  // non-blocking, close-on-exec, listening
    int port = 0;  // the one bound (the system's choice for port 0)
    bool loopback = false;  // bound to 127.0.0.0/8 or ::1 only
};

// Resolves the host (getaddrinfo: a name or a numeric address) and binds the first address that takes
// it. An unresolvable host, a taken port, an address that is not this machine's: UsageError.
ListenSocket listen_on(const std::string& host, int port, const std::string& address, config::OptionId flag);

}  // namespace rowpump::http
