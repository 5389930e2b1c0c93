#include "http/listen_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump::http {

std::pair<std::string, int> parse_address(const std::string& address, config::OptionId flag) {
    const auto bad = [&](const std::string& why) {
        return config::OptionError({flag, " " + address + ": " + why + "; give HOST:PORT, e.g. 127.0.0.1:8080"});
    };
    std::string host;
    std::string port;
    if (address.starts_with('[')) {
        const auto close = address.find(']');
        if (close == std::string::npos || address.substr(close + 1, 1) != ":") throw bad("unclosed [ in the host");
        host = address.substr(1, close - 1);
        port = address.substr(close + 2);
    } else if (const auto colon = address.rfind(':'); colon != std::string::npos) {
        host = address.substr(0, colon);
        port = address.substr(colon + 1);
    } else {
        port = address;
    }
    if (host.empty()) host = "127.0.0.1";
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
        throw bad("the port must be a number");
    const int number = std::stoi(port);
    if (number > 65535) throw bad("the port must be at most 65535");
    return {host, number};
}

namespace {

bool is_loopback(const sockaddr* address) {
    if (address->sa_family == AF_INET)
        return (ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr) >> 24) == 127;
    if (address->sa_family != AF_INET6) return false;
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string bind_problem(int error, const std::string& host, int port) {
    switch (error) {
        case EADDRINUSE:
            return "port " + std::to_string(port) + " is taken (another process listens there); choose another "
                   "port, or 0 for a free one";
        case EADDRNOTAVAIL:
            return host + " is not an address of this machine; give one of its own, e.g. 127.0.0.1";
        case EACCES:
            return "port " + std::to_string(port) + " needs privileges; choose a port above 1023, or 0 for a free one";
        default:
            return std::string("cannot listen there (") + std::strerror(error) + "); choose another HOST:PORT";
    }
}

}  // namespace

ListenSocket listen_on(const std::string& host, int port, const std::string& address, config::OptionId flag) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int code = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); code != 0)
        throw config::OptionError({flag, " " + address + ": cannot resolve the host '" + host + "' (" +
                                             ::gai_strerror(code) +
                                             "); give a name or address of this machine, e.g. 127.0.0.1:8080"});
    const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, &::freeaddrinfo);
    int first_error = 0;
    for (const addrinfo* candidate = found; candidate; candidate = candidate->ai_next) {
        const int fd = ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                                candidate->ai_protocol);
        if (fd < 0) {
            if (!first_error) first_error = errno;
            continue;
        }
        const int on = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (::bind(fd, candidate->ai_addr, candidate->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
            if (!first_error) first_error = errno;
            ::close(fd);
            continue;
        }
        sockaddr_storage bound{};
        socklen_t length = sizeof bound;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
        const int bound_port = ntohs(bound.ss_family == AF_INET6
                                         ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                         : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
        return {fd, bound_port, is_loopback(reinterpret_cast<const sockaddr*>(&bound))};
    }
    throw config::OptionError({flag, " " + address + ": " + bind_problem(first_error, host, port)});
}

}  // namespace rowpump::http
