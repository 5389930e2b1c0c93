#include "http/http_server.hpp"

#include <httplib.h>

#include <thread>

#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::http {

std::pair<std::string, int> parse_address(const std::string& address, const std::string& flag) {
    const auto bad = [&](const std::string& why) {
        return UsageError(flag + " " + address + ": " + why + "; give HOST:PORT, e.g. 127.0.0.1:8080");
    };
    std::string host;
    std::string port;
    if (address.starts_with('[')) {
        const auto close = address.find(']');
        if (close == std::string::npos || address.substr(close + 1, 1) != ":") throw bad("unclosed [ in the host");
        host = address.substr(1, close - 1);
        port = address.substr(close + 2);
    } else if (const auto colon = address.rfind(':'); colon != std::string::npos) {
        host = address.substr(0, colon);
        port = address.substr(colon + 1);
    } else {
        port = address;
    }
    if (host.empty()) host = "127.0.0.1";
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
        throw bad("the port must be a number");
    const int number = std::stoi(port);
    if (number > 65535) throw bad("the port must be at most 65535");
    return {host, number};
}

struct Server::Impl {
    httplib::Server server;
    int port = 0;
    std::thread thread;
};

Server::Server(const std::string& address, Handler handler, const std::string& what)
    : impl_(std::make_unique<Impl>()) {
    const auto [host, port] = parse_address(address, "--http");
    // Two threads: a scrape and a control request at once; nothing here is heavy.
    impl_->server.new_task_queue = [] { return new httplib::ThreadPool(2); };
    const auto serve = [handler](const httplib::Request& in, httplib::Response& out) {
        Request request{in.method, in.path, {}};
        for (const auto& [name, value] : in.params) request.query.emplace(name, value);
        Response response;
        try {
            response = handler(request);
        } catch (const std::exception& error) {
            response = {500, "text/plain", std::string(error.what()) + "\n"};
        }
        out.status = response.status;
        out.set_content(response.body, response.content_type.c_str());
    };
    impl_->server.Get(".*", serve);
    impl_->server.Post(".*", serve);
    if (port == 0) {
        impl_->port = impl_->server.bind_to_any_port(host);
    } else if (impl_->server.bind_to_port(host, port)) {
        impl_->port = port;
    }
    if (impl_->port <= 0)
        throw UsageError("--http " + address + ": cannot listen there (the address is not this machine's, or the "
                         "port is taken); choose another HOST:PORT");
    impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
    log().info("{} on http://{}:{}/", what, host, impl_->port);
}

Server::~Server() {
    impl_->server.stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

int Server::port() const { return impl_->port; }

}  // namespace rowpump::http
