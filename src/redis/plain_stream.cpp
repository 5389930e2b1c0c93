// A plain socket as a Stream: recv and send, with MSG_NOSIGNAL so that a write to a socket the server
// closed fails with EPIPE instead of raising SIGPIPE (a library must not touch the process's signals).
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "redis/stream.hpp"

namespace rowpump::redis {

namespace {

class PlainStream final : public Stream {
public:
    explicit PlainStream(SocketFd socket) : socket_(std::move(socket)) {}

    int fd() const noexcept override { return socket_.get(); }

    StreamIo read(char* buffer, std::size_t size) override {
        for (;;) {
            const ssize_t got = ::recv(socket_.get(), buffer, size, 0);
            if (got > 0) return {static_cast<std::size_t>(got), 0};
            if (got == 0) throw StreamLost("connection closed by the server");
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return {0, POLLIN};
            throw StreamLost(std::strerror(errno));
        }
    }

    StreamIo write(const char* data, std::size_t size) override {
        for (;;) {
            const ssize_t sent = ::send(socket_.get(), data, size, MSG_NOSIGNAL);
            if (sent >= 0) return {static_cast<std::size_t>(sent), sent == 0 ? short(POLLOUT) : short(0)};
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return {0, POLLOUT};
            throw StreamLost(std::strerror(errno));
        }
    }

private:
    SocketFd socket_;
};

}  // namespace

std::unique_ptr<Stream> plain_stream(SocketFd socket) { return std::make_unique<PlainStream>(std::move(socket)); }

}  // namespace rowpump::redis
