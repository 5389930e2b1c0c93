// rowpump's own HTTP/1.1 server, a justified hand-roll (docs/DESIGN.md says so beside the driver walls): the
// cpp-httplib that Debian 12 ships (0.11.4) reads a POST without Content-Length until the peer closes
// (`curl -X POST URL` hung until curl gave up), cannot bound a connection's total header or body time,
// and its pool threads block in reads, so two clients sending a header line every 2 s held both threads
// (no /metrics, no POST /pause) and kept a finished run alive until they went away. The endpoint needs
// little: a few small GETs and POSTs, one request per connection. So: one thread, poll() over the
// listening socket, a wake eventfd and the connections, all non-blocking; each connection has a deadline
// for its whole request and one for its answer, and a request is parsed by request_parser.hpp.
#include "http/http_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "http/post_guard.hpp"
#include "http/request_parser.hpp"
#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::http {

std::vector<std::string> Request::values(const std::string& name) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : query)
        if (key == name) out.push_back(value);
    return out;
}

std::vector<std::string> Request::header(std::string_view name) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : headers)
        if (iequals(key, name)) out.push_back(value);
    return out;
}

namespace {

using clock = std::chrono::steady_clock;

// The whole request (line, headers, body) must arrive within this: a slow client loses its connection,
// and holds nothing meanwhile.
constexpr auto request_time = std::chrono::seconds(5);
// The answer must be taken within this.
constexpr auto answer_time = std::chrono::seconds(5);
// After the answer, what the client still sends is read and dropped this long, so that closing with
// unread bytes does not reset the connection under an answer not yet read.
constexpr auto linger_time = std::chrono::seconds(1);
// More connections than this: the oldest one is closed for the new one.
constexpr std::size_t max_connections = 64;

const char* reason_phrase(int status) {
    switch (status) {
        case 200: return "OK";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 408: return "Request Timeout";
        case 413: return "Content Too Large";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 501: return "Not Implemented";
        case 505: return "HTTP Version Not Supported";
        default: return "Unknown";
    }
}

// Sent with every answer, whatever it is: the status page (GET /, http/web_page.hpp) runs only the script
// it serves itself and talks only to its own origin; no answer is sniffed into another type, framed by
// another site, or kept in a cache (a status is stale at once).
constexpr const char* common_headers =
    "\r\nContent-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    "\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nReferrer-Policy: no-referrer"
    "\r\nCache-Control: no-store";

std::string serialize(const Response& response) {
    // Every 401 here is the token's (post_guard.hpp), and RFC 9110 wants the scheme named with it; a browser
    // shows no login box of its own for Bearer, so the page asks for the token itself.
    const char* challenge = response.status == 401 ? "\r\nWWW-Authenticate: Bearer realm=\"rowpump\"" : "";
    return "HTTP/1.1 " + std::to_string(response.status) + " " + reason_phrase(response.status) + challenge +
           "\r\nContent-Type: " + response.content_type +
           "\r\nContent-Length: " + std::to_string(response.body.size()) + common_headers +
           "\r\nConnection: close\r\n\r\n" + response.body;
}

struct Connection {
    enum class Phase { reading, answering, lingering };
    int fd = -1;  // -1: closed, to be removed
    Phase phase = Phase::reading;
    clock::time_point deadline;
    std::string received;
    std::string answer;
    std::size_t sent = 0;

    void close() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

}  // namespace

struct Server::Impl {
    Handler handler;
    std::optional<PostGuard> guard;  // set before the thread starts
    ListenSocket listener;
    int wake = -1;
    std::vector<Connection> connections;  // the server thread's alone
    // After an accept failed for want of resources (EMFILE, ENOBUFS), the listener rests until then: a
    // listener still readable would wake the poll at once, again and again.
    clock::time_point accept_again{};
    std::thread thread;

    ~Impl() {
        for (auto& connection : connections) connection.close();
        if (listener.fd >= 0) ::close(listener.fd);
        if (wake >= 0) ::close(wake);
    }

    void serve();
    void accept_all(clock::time_point now);
    void read_from(Connection& connection, clock::time_point now);
    void answer(Connection& connection, const Response& response, clock::time_point now);
    void write_to(Connection& connection, clock::time_point now);
    Response call_handler(const Request& request) const;
};

void Server::Impl::serve() {
    std::vector<pollfd> polled;
    for (;;) {
        auto now = clock::now();
        auto next = now + std::chrono::hours(1);
        const bool accepting = now >= accept_again;
        if (!accepting) next = std::min(next, accept_again);
        polled.assign({{wake, POLLIN, 0}, {listener.fd, static_cast<short>(accepting ? POLLIN : 0), 0}});
        for (const auto& connection : connections) {
            const short events = connection.phase == Connection::Phase::answering ? POLLOUT : POLLIN;
            polled.push_back({connection.fd, events, 0});
            next = std::min(next, connection.deadline);
        }
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(next - now, clock::duration::zero()));
        if (::poll(polled.data(), polled.size(), static_cast<int>(wait.count())) < 0 && errno != EINTR) {
            log().error("the HTTP endpoint stops: poll failed ({})", std::strerror(errno));
            return;
        }
        if (polled[0].revents != 0) return;  // the destructor woke it
        now = clock::now();
        for (std::size_t i = 0; i < connections.size(); ++i) {
            Connection& connection = connections[i];
            if (polled[i + 2].revents == 0) continue;
            if (connection.phase == Connection::Phase::answering) write_to(connection, now);
            else read_from(connection, now);
        }
        for (auto& connection : connections) {
            if (connection.fd < 0 || now < connection.deadline) continue;
            if (connection.phase == Connection::Phase::reading) {
                // One try, without waiting: a client this slow may not read it either.
                const std::string timeout = serialize({408, "text/plain", "the request took over 5 s\n"});
                [[maybe_unused]] const auto ignored =
                    ::send(connection.fd, timeout.data(), timeout.size(), MSG_NOSIGNAL);
            }
            connection.close();
        }
        std::erase_if(connections, [](const Connection& connection) { return connection.fd < 0; });
        if (polled[1].revents & POLLIN) accept_all(now);
    }
}

void Server::Impl::accept_all(clock::time_point now) {
    for (;;) {
        const int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            // EAGAIN: no more waiting. A connection that failed before it was taken is the client's
            // trouble; a want of descriptors or memory is ours: rest a little.
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                accept_again = now + std::chrono::milliseconds(100);
            return;
        }
        if (connections.size() >= max_connections) {
            // The oldest connection makes room: a crowd of idle clients cannot lock the endpoint out.
            const auto oldest =
                std::min_element(connections.begin(), connections.end(),
                                 [](const Connection& a, const Connection& b) { return a.deadline < b.deadline; });
            oldest->close();
            connections.erase(oldest);
        }
        Connection connection;
        connection.fd = fd;
        connection.deadline = now + request_time;
        connections.push_back(std::move(connection));
    }
}

void Server::Impl::read_from(Connection& connection, clock::time_point now) {
    // One read per wake-up, then the parser looks: what a connection holds stays within the parser's
    // limits plus one buffer.
    char buffer[8192];
    const ssize_t got = ::recv(connection.fd, buffer, sizeof buffer, 0);
    if (got < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) connection.close();
        return;
    }
    if (connection.phase == Connection::Phase::lingering) {
        if (got == 0) connection.close();
        return;
    }
    connection.received.append(buffer, static_cast<std::size_t>(got));
    const Parsed parsed = parse_request(connection.received, RequestLimits{});
    switch (parsed.state) {
        case Parsed::State::incomplete:
            if (got == 0) connection.close();  // the client went away before its request was whole
            return;
        case Parsed::State::refused:
            answer(connection, {parsed.status, "text/plain", parsed.problem + "\n"}, now);
            return;
        case Parsed::State::complete:
            answer(connection, call_handler(parsed.request), now);
            return;
    }
}

Response Server::Impl::call_handler(const Request& request) const {
    if (auto refused = guard->refusal(request)) return *refused;
    try {
        return handler(request);
    } catch (const std::exception& error) {
        return {500, "text/plain", std::string(error.what()) + "\n"};
    }
}

void Server::Impl::answer(Connection& connection, const Response& response, clock::time_point now) {
    connection.phase = Connection::Phase::answering;
    connection.answer = serialize(response);
    connection.received.clear();
    connection.deadline = now + answer_time;
    write_to(connection, now);  // most answers fit the socket's buffer: sent at once
}

void Server::Impl::write_to(Connection& connection, clock::time_point now) {
    while (connection.sent < connection.answer.size()) {
        const ssize_t sent = ::send(connection.fd, connection.answer.data() + connection.sent,
                                    connection.answer.size() - connection.sent, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) connection.close();
            return;
        }
        connection.sent += static_cast<std::size_t>(sent);
    }
    ::shutdown(connection.fd, SHUT_WR);
    connection.phase = Connection::Phase::lingering;
    connection.deadline = now + linger_time;
}

Server::Server(const std::string& address, Handler handler, const std::string& what, config::OptionId flag)
    : impl_(std::make_unique<Impl>()) {
    const auto [host, port] = parse_address(address, flag);
    impl_->handler = std::move(handler);
    impl_->listener = listen_on(host, port, address, flag);
    impl_->wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (impl_->wake < 0) throw Error(std::string("cannot start the HTTP endpoint: eventfd: ") + std::strerror(errno));
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    impl_->guard = PostGuard::from_environment(impl_->listener.loopback);
    const std::string cli = config::option(flag).cli;
    if (!impl_->listener.loopback && impl_->guard->has_token())
        log().warn("{} {} is reachable from other machines: POSTs (pause, stop, rate, ...) need the token of "
                   "ROWPUMP_HTTP_TOKEN[_FILE], but GET / (the page), /status and /metrics are open to whoever reaches "
                   "it, and plain HTTP carries the token in clear: use it on a network you trust, or put a proxy "
                   "that speaks TLS in front (docs/throttling.md)",
                   cli, address);
    else if (!impl_->listener.loopback)
        log().warn("{} {} is reachable from other machines and no token is set: POSTs (pause, stop, rate, ...) are "
                   "refused until ROWPUMP_HTTP_TOKEN or ROWPUMP_HTTP_TOKEN_FILE holds one, while GET / (the page), "
                   "/status and /metrics are open to whoever reaches it. Set a token, or bind 127.0.0.1 and reach "
                   "it through an SSH tunnel (docs/throttling.md)",
                   cli, address);
    impl_->thread = std::thread([impl = impl_.get()] { impl->serve(); });
    log().info("{} on http://{}:{}/{}", what, shown, impl_->listener.port,
               impl_->guard->has_token() ? " (POSTs need the token of ROWPUMP_HTTP_TOKEN[_FILE])" : "");
}

Server::~Server() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto ignored = ::write(impl_->wake, &one, sizeof one);
    if (impl_->thread.joinable()) impl_->thread.join();
}

int Server::port() const { return impl_->listener.port; }

}  // namespace rowpump::http
