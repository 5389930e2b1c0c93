#pragma once
// A small HTTP server on its own threads, for status, control and metrics. cpp-httplib stays in
// http_server.cpp: handlers see only these types.
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace rowpump::http {

struct Request {
    std::string method;  // GET, POST
    std::string path;
    std::map<std::string, std::string> query;  // decoded ?name=value pairs
};

struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
};

using Handler = std::function<Response(const Request&)>;

class Server {
public:
    // Binds `address` (see parse_address; a bad or busy one is a UsageError, before anything runs) and
    // serves `handler` on two threads until destroyed. The log says "<what> on http://HOST:PORT/".
    Server(const std::string& address, Handler handler, const std::string& what);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // The port it listens on (the one asked for, or the one the system chose for port 0).
    int port() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Splits HOST:PORT ([v6]:PORT too); PORT or :PORT alone is 127.0.0.1: the endpoint controls the run
// and has no authentication, so it is reachable from elsewhere only when a host says so. `flag` names
// the option in the error. Throws UsageError.
std::pair<std::string, int> parse_address(const std::string& address, const std::string& flag);

}  // namespace rowpump::http
