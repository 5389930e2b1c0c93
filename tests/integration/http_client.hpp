#pragma once
// A minimal HTTP/1.1 client for the tests of rowpump's --http endpoint: one request per connection to
// 127.0.0.1, the whole answer read until the server closes. Plain sockets, so that the server is tested
// by bytes it did not write.
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "integration/loopback_socket.hpp"

namespace rowpump::test {

struct HttpAnswer {
    int status = 0;  // 0: no answer
    std::string body;
};

inline HttpAnswer http_request(int port, const std::string& method, const std::string& target) {
    HttpAnswer answer;
    const int fd = connect_loopback(port, 5);
    if (fd < 0) return answer;
    // What curl sends for `curl -X POST URL`, as the docs show it: a POST without a body has no
    // Content-Length either.
    const std::string request = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/7.88.1\r\n"
                                "Accept: */*\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
        ::close(fd);
        return answer;
    }
    std::string reply;
    char buffer[4096];
    for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, static_cast<std::size_t>(got));
    ::close(fd);
    // "HTTP/1.1 200 OK\r\n...headers...\r\n\r\nbody"
    const auto space = reply.find(' ');
    const auto headers_end = reply.find("\r\n\r\n");
    if (space == std::string::npos || headers_end == std::string::npos) return answer;
    answer.status = std::atoi(reply.c_str() + space + 1);
    answer.body = reply.substr(headers_end + 4);
    return answer;
}

}  // namespace rowpump::test
