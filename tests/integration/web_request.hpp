#pragma once
// An HTTP/1.1 request with a body to 127.0.0.1 (http_client.hpp sends none), for chromedriver's WebDriver
// API and for the answers' headers: one request per connection, read until Content-Length or the close.
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "integration/loopback_socket.hpp"

namespace rowpump::test {

struct WebAnswer {
    int status = 0;  // 0: no answer
    std::string headers;  // the header lines, as sent
    std::string body;
};

inline WebAnswer web_request(int port, const std::string& method, const std::string& target, const std::string& body) {
    WebAnswer answer;
    const int fd = connect_loopback(port, 60);  // a new browser session takes seconds
    if (fd < 0) return answer;
    std::string request = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                          "\r\nConnection: close\r\n";
    if (method == "POST") request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    request += "\r\n" + body;
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
        ::close(fd);
        return answer;
    }
    std::string reply;
    char buffer[16384];
    std::size_t headers_end = std::string::npos;
    std::size_t length = std::string::npos;
    for (ssize_t got; (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
        reply.append(buffer, static_cast<std::size_t>(got));
        if (headers_end == std::string::npos && (headers_end = reply.find("\r\n\r\n")) != std::string::npos) {
            for (std::size_t at = reply.find("\r\n"); at < headers_end; at = reply.find("\r\n", at + 2))
                if (::strncasecmp(reply.c_str() + at + 2, "content-length:", 15) == 0)
                    length = std::strtoull(reply.c_str() + at + 17, nullptr, 10);
        }
        if (headers_end != std::string::npos && length != std::string::npos && reply.size() >= headers_end + 4 + length) break;
    }
    ::close(fd);
    const auto space = reply.find(' ');
    if (space == std::string::npos || headers_end == std::string::npos) return answer;
    answer.status = std::atoi(reply.c_str() + space + 1);
    answer.headers = reply.substr(0, headers_end);
    answer.body = reply.substr(headers_end + 4);
    return answer;
}

}  // namespace rowpump::test
