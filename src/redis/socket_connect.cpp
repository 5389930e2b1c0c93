#include "redis/socket_connect.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rowpump::redis {

SocketFd::~SocketFd() {
    if (fd_ >= 0) ::close(fd_);
}

SocketFd& SocketFd::operator=(SocketFd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::string error_text(int error) { return std::strerror(error); }

// connect(2) on a non-blocking socket, then a wait of at most `timeout` for it to complete.
void connect_within(int fd, const sockaddr* address, socklen_t length, milliseconds timeout) {
    if (::connect(fd, address, length) == 0) return;
    if (errno != EINPROGRESS && errno != EAGAIN) throw StreamLost(error_text(errno));
    const auto deadline = steady_clock::now() + timeout;
    for (;;) {
        int wait = -1;
        if (timeout.count() > 0) {
            const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now()).count();
            if (left <= 0) throw StreamLost("timed out after " + std::to_string(timeout.count()) + " ms");
            wait = static_cast<int>(left);
        }
        pollfd socket{fd, POLLOUT, 0};
        const int ready = ::poll(&socket, 1, wait);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw StreamLost(error_text(errno));
        if (ready == 0) continue;  // the deadline is looked at above
        int error = 0;
        socklen_t size = sizeof error;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) throw StreamLost(error_text(errno));
        if (error != 0) throw StreamLost(error_text(error));
        return;
    }
}

SocketFd new_socket(int family, int type) {
    SocketFd fd(::socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) throw StreamLost("cannot create a socket: " + error_text(errno));
    return fd;
}

}  // namespace

SocketFd connect_tcp(const std::string& host, unsigned port, milliseconds timeout) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int error = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); error != 0)
        throw StreamLost(std::string("cannot resolve '") + host + "': " + ::gai_strerror(error));
    std::string last_error = "no address";
    for (const addrinfo* address = found; address != nullptr; address = address->ai_next) {
        try {
            SocketFd fd = new_socket(address->ai_family, address->ai_socktype);
            connect_within(fd.get(), address->ai_addr, address->ai_addrlen, timeout);
            // Small commands (a WAIT, a checkpoint) go out at once; a dead peer is noticed by the kernel.
            const int on = 1;
            ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
            ::setsockopt(fd.get(), SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
            ::freeaddrinfo(found);
            return fd;
        } catch (const StreamLost& error) {
            last_error = error.what();
        }
    }
    ::freeaddrinfo(found);
    throw StreamLost(last_error);
}

SocketFd connect_unix(const std::string& path, milliseconds timeout) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path)
        throw StreamLost("the socket path is longer than " + std::to_string(sizeof address.sun_path - 1) + " bytes");
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    SocketFd fd = new_socket(AF_UNIX, SOCK_STREAM);
    connect_within(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address, timeout);
    return fd;
}

}  // namespace rowpump::redis
