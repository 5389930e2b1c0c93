#pragma once
// The byte stream under a Redis connection: a plain socket (TCP or unix) or TLS over one (tls_stream.*).
// Every stream is non-blocking: a read or write that cannot go on now says which readiness it waits for,
// and Connection does the waiting (poll(2)), so that its timeouts and the stop flag hold for every kind
// of stream alike. hiredis plays no part here; it only parses the bytes read (redisReader).
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace rowpump::redis {

// What one read or write did: `bytes` moved, or none and `wait` (POLLIN or POLLOUT) to wait for.
struct StreamIo {
    std::size_t bytes = 0;
    short wait = 0;
};

// The peer closed the stream or the socket failed; what() says how ("Connection reset by peer"). The
// connection is then lost: Connection turns it into a transient QueueError.
class StreamLost : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An open socket descriptor, closed once.
class SocketFd {
public:
    SocketFd() = default;
    explicit SocketFd(int fd) noexcept : fd_(fd) {}
    ~SocketFd();
    SocketFd(SocketFd&& other) noexcept : fd_(other.release()) {}
    SocketFd& operator=(SocketFd&& other) noexcept;
    SocketFd(const SocketFd&) = delete;
    SocketFd& operator=(const SocketFd&) = delete;

    int get() const noexcept { return fd_; }
    int release() noexcept {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
};

class Stream {
public:
    virtual ~Stream() = default;
    virtual int fd() const noexcept = 0;
    // A stream that must agree on something before it carries data (the TLS handshake): the readiness to
    // wait for before calling it again, or 0 once it is done. Throws StreamLost, or UsageError for a
    // check that failed (the server's certificate, the client's).
    virtual short handshake() { return 0; }
    // Throw StreamLost when the stream is closed or broken; a read of 0 bytes always comes with a `wait`.
    virtual StreamIo read(char* buffer, std::size_t size) = 0;
    virtual StreamIo write(const char* data, std::size_t size) = 0;
    // Bytes already taken off the socket and not yet handed out (a TLS record read in part): a reader
    // must read them before it waits on the socket, which would never wake for them.
    virtual bool has_buffered() const noexcept { return false; }
};

// A plain socket, already connected.
std::unique_ptr<Stream> plain_stream(SocketFd socket);

}  // namespace rowpump::redis
