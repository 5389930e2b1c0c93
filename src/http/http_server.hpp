#pragma once
// A small HTTP/1.1 server on one thread of its own, for status, control and metrics: handlers see only
// these types. It is rowpump's own (http_server.cpp says why): every connection has a deadline, so slow
// clients neither block the others nor keep a finished run alive.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/listen_socket.hpp"

namespace rowpump::http {

struct Request {
    std::string method;  // GET, POST
    std::string path;  // percent-decoded
    // The decoded ?name=value pairs in their order, duplicates kept (so that a handler can refuse them).
    std::vector<std::pair<std::string, std::string>> query;
    // The header fields as sent (name, value without the blanks around it), in order.
    std::vector<std::pair<std::string, std::string>> headers;

    // Every value given for `name`, in order.
    std::vector<std::string> values(const std::string& name) const;
    // Every value of the header field `name` (case-insensitive), in order.
    std::vector<std::string> header(std::string_view name) const;
};

struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
};

using Handler = std::function<Response(const Request&)>;

class Server {
public:
    // Binds `address` (parse_address, listen_on: a bad, unresolvable or busy one is a UsageError, before
    // anything runs) and serves `handler` on its own thread until destroyed. The log says "<what> on
    // http://HOST:PORT/", and warns when the address is reachable from other machines. Requests that can
    // change something (any method but GET and HEAD) pass the PostGuard first (post_guard.hpp): the token
    // of ROWPUMP_HTTP_TOKEN[_FILE], read here (an unreadable file or a bad token is a UsageError), and the
    // Origin check.
    // `flag` is the option that gave the address (--http, throttle.http in a job file), named by its errors.
    Server(const std::string& address, Handler handler, const std::string& what,
           config::OptionId flag = config::OptionId::http);
    // Returns at once, whatever the clients: open connections are closed, a request half sent is dropped.
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // The port it listens on (the one asked for, or the one the system chose for port 0).
    int port() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rowpump::http
