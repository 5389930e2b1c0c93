#include "redis/endpoint.hpp"

#include "redis/connection.hpp"
#include "redis/socket_connect.hpp"
#include "redis/tls_stream.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

std::unique_ptr<Stream> open_stream(const RedisOptions& options, const std::string& host, unsigned port) {
    if (!options.socket.empty()) return plain_stream(connect_unix(options.socket, options.connect_timeout));
    SocketFd socket = connect_tcp(host, port, options.connect_timeout);
    if (options.tls) return tls_stream(std::move(socket), options, host);
    return plain_stream(std::move(socket));
}

namespace {

// A sentinel is asked with the URL's timeouts and TLS settings, without its user and password (a sentinel
// has its own, rarely set), once: the caller's retry loop asks again.
RedisOptions sentinel_options(const RedisOptions& options, const std::pair<std::string, unsigned>& sentinel) {
    RedisOptions asked;
    static_cast<ServerTimeouts&>(asked) = options;
    asked.host = sentinel.first;
    asked.port = sentinel.second;
    asked.connect_timeout = options.connect_timeout;
    asked.tls = options.tls;
    asked.ssl_mode = options.ssl_mode;
    asked.ssl_ca = options.ssl_ca;
    asked.ssl_cert = options.ssl_cert;
    asked.ssl_key = options.ssl_key;
    asked.stop = options.stop;
    return asked;
}

}  // namespace

std::pair<std::string, unsigned> master_from_sentinels(const RedisOptions& options) {
    std::string failures;
    for (const auto& sentinel : options.sentinels) {
        const std::string where = sentinel.first + ":" + std::to_string(sentinel.second);
        try {
            Connection connection(sentinel_options(options, sentinel));
            const Reply reply = connection.command({"SENTINEL", "get-master-addr-by-name", options.master_name});
            if (reply.is_nil()) {
                failures += "; sentinel " + where + " does not know a master named '" + options.master_name + "'";
                continue;
            }
            if (reply.elements.size() == 2) {
                const unsigned long port = std::stoul(reply.elements[1].text);
                return {reply.elements[0].text, static_cast<unsigned>(port)};
            }
            failures += "; sentinel " + where + " gave no address";
        } catch (const QueueError& error) {
            failures += "; sentinel " + where + ": " + error.what();
        } catch (const std::logic_error&) {
            failures += "; sentinel " + where + " gave a port that is no number";
        }
    }
    throw QueueError("no sentinel of " + options.redacted() + " named the master '" + options.master_name + "'" +
                         failures,
                     true);
}

}  // namespace rowpump::redis
