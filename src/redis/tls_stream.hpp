#pragma once
// TLS over a connected socket, through OpenSSL (the only code that uses it, with tls_stream.cpp): the
// server's certificate checked against ssl_ca (or the system's CAs) and the name in the URL, as
// RedisOptions::ssl_mode says; a client certificate when ssl_cert and ssl_key are given.
#include <memory>
#include <string>

#include "redis/stream.hpp"
#include "rowpump/options.hpp"

namespace rowpump::redis {

// The stream does its handshake through Stream::handshake(). `host` is the name the server's certificate
// must carry (verify_identity) and the one sent as SNI. A CA, certificate or key file that cannot be
// used is a UsageError now; a check that fails in the handshake is one then, naming the check.
std::unique_ptr<Stream> tls_stream(SocketFd socket, const RedisOptions& options, const std::string& host);

}  // namespace rowpump::redis
