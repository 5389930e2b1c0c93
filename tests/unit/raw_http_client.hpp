#pragma once
// A raw TCP client for the in-process tests of rowpump's HTTP server: it sends exactly the bytes a test
// gives (what curl sends, a header line at a time, a request cut short) and reads the answer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace rowpump::test {

class RawClient {
public:
    explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    }
    ~RawClient() {
        if (fd_ >= 0) ::close(fd_);
    }
    RawClient(const RawClient&) = delete;
    RawClient& operator=(const RawClient&) = delete;

    bool connected() const { return connected_; }
    bool send(const std::string& bytes) {
        return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
    }
    // Everything until the server closes, or until `limit` passes (then what came so far).
    std::string read_all(std::chrono::milliseconds limit) {
        const timeval timeout{static_cast<time_t>(limit.count() / 1000), static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        std::string reply;
        const auto deadline = std::chrono::steady_clock::now() + limit;
        char buffer[4096];
        while (std::chrono::steady_clock::now() < deadline) {
            const ssize_t got = ::recv(fd_, buffer, sizeof buffer, 0);
            if (got <= 0) break;
            reply.append(buffer, static_cast<std::size_t>(got));
        }
        return reply;
    }

private:
    int fd_;
    bool connected_ = false;
};

// A client that sends a header line every 200 ms and never finishes its request (a slow loris).
class SlowClient {
public:
    explicit SlowClient(int port) : client_(port) {
        client_.send("GET /metrics HTTP/1.1\r\n");
        thread_ = std::thread([this] {
            for (int line = 0; !done_.load() && client_.send("X-Slow-" + std::to_string(line) + ": 1\r\n"); ++line) {
                lines_.fetch_add(1);
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            }
        });
    }
    ~SlowClient() {
        done_.store(true);
        thread_.join();
    }
    SlowClient(const SlowClient&) = delete;
    SlowClient& operator=(const SlowClient&) = delete;

    RawClient& client() { return client_; }
    int lines_sent() const { return lines_.load(); }
    // Connected, and two header lines into a request it never ends.
    bool inside_its_request() const { return client_.connected() && lines_.load() >= 2; }

private:
    RawClient client_;
    std::atomic<int> lines_{0};
    std::atomic<bool> done_{false};
    std::thread thread_;
};

// The status code of "HTTP/1.1 200 OK\r\n..."; 0 for no answer.
inline int status_of(const std::string& reply) {
    return reply.starts_with("HTTP/1.1 ") ? std::atoi(reply.c_str() + 9) : 0;
}

inline std::string body_of(const std::string& reply) {
    const auto end = reply.find("\r\n\r\n");
    return end == std::string::npos ? "" : reply.substr(end + 4);
}

}  // namespace rowpump::test
