#include "http/status_check.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "rowpump/error.hpp"

namespace rowpump::http {

namespace {

using clock = std::chrono::steady_clock;

class Socket {
public:
    explicit Socket(int fd) : fd_(fd) {}
    ~Socket() {
        if (fd_ >= 0) ::close(fd_);
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    int fd() const { return fd_; }

private:
    int fd_;
};

// Waits for `events` on `fd` until `until`; false when the time ran out.
bool wait_for(int fd, short events, clock::time_point until) {
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock::now()).count();
        if (left <= 0) return false;
        pollfd entry{fd, events, 0};
        const int ready = ::poll(&entry, 1, static_cast<int>(left));
        if (ready > 0) return true;
        if (ready < 0 && errno != EINTR) return false;
    }
}

std::string error_text(int code) { return std::strerror(code); }

}  // namespace

StatusUrl parse_status_url(const std::string& url, const std::string& flag) {
    const std::string scheme = "http://";
    const auto bad = [&](const std::string& why) {
        return UsageError(flag + " '" + url + "': " + why + "; give http://HOST[:PORT]/PATH");
    };
    if (url.rfind(scheme, 0) != 0) throw bad(url.rfind("https://", 0) == 0 ? "https is not supported" : "not an http:// URL");
    StatusUrl parsed;
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find_first_of("/?");
    const std::string authority = rest.substr(0, slash);
    parsed.target = slash == std::string::npos ? "/" : rest.substr(slash);
    if (parsed.target[0] == '?') parsed.target = "/" + parsed.target;
    if (authority.empty() || authority.find('@') != std::string::npos) throw bad("no host (and no user:password@)");
    // [v6]:PORT keeps its colons inside the brackets.
    const std::size_t bracket = authority[0] == '[' ? authority.find(']') : std::string::npos;
    if (authority[0] == '[' && bracket == std::string::npos) throw bad("no ']' after an IPv6 address");
    const std::size_t colon = authority.find(':', bracket == std::string::npos ? 0 : bracket);
    parsed.host = authority.substr(0, colon);
    if (colon != std::string::npos) {
        const std::string port = authority.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
            std::stoi(port) < 1 || std::stoi(port) > 65535)
            throw bad("the port must be 1 to 65535");
        parsed.port = std::stoi(port);
    }
    if (parsed.host.size() > 2 && parsed.host.front() == '[' && parsed.host.back() == ']')
        parsed.host = parsed.host.substr(1, parsed.host.size() - 2);
    if (parsed.host.empty()) throw bad("no host");
    for (const char c : parsed.target)
        if (static_cast<unsigned char>(c) <= ' ') throw bad("a space or control character in the path");
    return parsed;
}

StatusAnswer check_status(const StatusUrl& url, std::chrono::milliseconds deadline) {
    const auto until = clock::now() + deadline;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int failed = ::getaddrinfo(url.host.c_str(), std::to_string(url.port).c_str(), &hints, &found))
        return {0, "cannot resolve " + url.host + ": " + ::gai_strerror(failed)};
    Socket socket(::socket(found->ai_family, found->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    const int connected = socket.fd() < 0 ? -1 : ::connect(socket.fd(), found->ai_addr, found->ai_addrlen);
    const int connect_error = errno;
    ::freeaddrinfo(found);
    if (socket.fd() < 0) return {0, "no socket: " + error_text(connect_error)};
    if (connected != 0 && connect_error != EINPROGRESS) return {0, error_text(connect_error)};
    const std::string timed_out = "no answer within " + std::to_string(deadline.count()) + " ms";
    if (!wait_for(socket.fd(), POLLOUT, until)) return {0, timed_out};
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return {0, error_text(error)};

    const std::string request = "GET " + url.target + " HTTP/1.1\r\nHost: " + url.host + "\r\nUser-Agent: rowpump\r\n" +
                                "Connection: close\r\n\r\n";
    for (std::size_t sent = 0; sent < request.size();) {
        if (!wait_for(socket.fd(), POLLOUT, until)) return {0, timed_out};
        const ssize_t wrote = ::send(socket.fd(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (wrote < 0 && errno != EAGAIN && errno != EINTR) return {0, error_text(errno)};
        if (wrote > 0) sent += static_cast<std::size_t>(wrote);
    }
    // "HTTP/1.1 200 OK\r\n": the status line is all that is read.
    std::string head;
    while (head.find("\r\n") == std::string::npos && head.size() < 256) {
        if (!wait_for(socket.fd(), POLLIN, until)) return {0, timed_out};
        char buffer[256];
        const ssize_t got = ::recv(socket.fd(), buffer, sizeof buffer, 0);
        if (got == 0) break;
        if (got < 0 && errno != EAGAIN && errno != EINTR) return {0, error_text(errno)};
        if (got > 0) head.append(buffer, static_cast<std::size_t>(got));
    }
    if (head.rfind("HTTP/1.", 0) != 0 || head.size() < 12 || head[8] != ' ' ||
        head.find_first_not_of("0123456789", 9) != 12)
        return {0, "not an HTTP answer"};
    return {std::stoi(head.substr(9, 3)), ""};
}

}  // namespace rowpump::http
