#include "redis/tls_stream.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

// OpenSSL writes with write(2): on a socket the server has closed that raises SIGPIPE, which kills the
// process unless someone ignores it. A library must not change the process's signal handling, so the
// signal is blocked for this thread while OpenSSL writes, and a SIGPIPE it caused is consumed before the
// old mask comes back (the way libcurl does it). The write then fails with EPIPE: a lost connection.
class SigpipeBlock {
public:
    SigpipeBlock() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
        was_pending_ = pending();
    }
    ~SigpipeBlock() {
        if (!was_pending_ && pending()) {
            const timespec no_wait{0, 0};
            while (sigtimedwait(&pipe_, nullptr, &no_wait) == -1 && errno == EINTR) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    }
    SigpipeBlock(const SigpipeBlock&) = delete;
    SigpipeBlock& operator=(const SigpipeBlock&) = delete;

private:
    static bool pending() {
        sigset_t set;
        sigemptyset(&set);
        sigpending(&set);
        return sigismember(&set, SIGPIPE) == 1;
    }

    sigset_t pipe_;
    sigset_t previous_;
    bool was_pending_ = false;
};

struct ContextFree {
    void operator()(SSL_CTX* context) const noexcept { SSL_CTX_free(context); }
};
struct SslFree {
    void operator()(SSL* ssl) const noexcept { SSL_free(ssl); }
};

// OpenSSL's last error, as text, and its queue emptied (it is per thread, and would mislead the next call).
std::string openssl_error() {
    const unsigned long code = ERR_peek_last_error();
    std::string text = "unknown TLS error";
    if (code != 0) {
        char buffer[256];
        ERR_error_string_n(code, buffer, sizeof buffer);
        text = buffer;
    }
    ERR_clear_error();
    return text;
}

// A failed verification of the server's certificate, in words that say which check failed.
std::string failed_check(long result, const std::string& host) {
    const std::string detail = X509_verify_cert_error_string(result);
    switch (result) {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        case X509_V_ERR_CERT_UNTRUSTED:
            return "untrusted CA: the server's certificate does not chain to ssl-ca (" + detail + ")";
        case X509_V_ERR_HOSTNAME_MISMATCH:
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
            return "name mismatch: the server's certificate does not name '" + host +
                   "' (connect by a name it carries, or ssl-mode=VERIFY_CA)";
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return "expired: the server's certificate has expired (" + detail + ")";
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return "expired: the server's certificate is not valid yet (" + detail + ")";
        default:
            return "the server's certificate failed verification (" + detail + ")";
    }
}

bool is_ip_address(const std::string& host) {
    unsigned char address[16];
    return ::inet_pton(AF_INET, host.c_str(), address) == 1 || ::inet_pton(AF_INET6, host.c_str(), address) == 1;
}

class TlsStream final : public Stream {
public:
    TlsStream(SocketFd socket, const RedisOptions& options, const std::string& host)
        : socket_(std::move(socket)), host_(host), redacted_(options.redacted()),
          client_certificate_(!options.ssl_cert.empty()) {
        ERR_clear_error();
        context_.reset(SSL_CTX_new(TLS_client_method()));
        if (!context_) throw std::bad_alloc();
        SSL_CTX_set_min_proto_version(context_.get(), TLS1_2_VERSION);
        const bool verify = options.ssl_mode == SslMode::verify_ca || options.ssl_mode == SslMode::verify_identity;
        if (verify) {
            const bool loaded = options.ssl_ca.empty()
                                    ? SSL_CTX_set_default_verify_paths(context_.get()) == 1
                                    : SSL_CTX_load_verify_locations(context_.get(), options.ssl_ca.c_str(), nullptr) == 1;
            if (!loaded) unusable("ssl-ca", options.ssl_ca.empty() ? "the system's CAs" : options.ssl_ca);
            SSL_CTX_set_verify(context_.get(), SSL_VERIFY_PEER, nullptr);
        } else {
            SSL_CTX_set_verify(context_.get(), SSL_VERIFY_NONE, nullptr);
        }
        if (client_certificate_) {
            if (SSL_CTX_use_certificate_chain_file(context_.get(), options.ssl_cert.c_str()) != 1)
                unusable("ssl-cert", options.ssl_cert);
            if (SSL_CTX_use_PrivateKey_file(context_.get(), options.ssl_key.c_str(), SSL_FILETYPE_PEM) != 1)
                unusable("ssl-key", options.ssl_key);
            if (SSL_CTX_check_private_key(context_.get()) != 1)
                throw UsageError("ssl-key '" + options.ssl_key + "' is not the key of ssl-cert '" + options.ssl_cert +
                                 "' in " + redacted_);
        }
        ssl_.reset(SSL_new(context_.get()));
        if (!ssl_ || SSL_set_fd(ssl_.get(), socket_.get()) != 1) throw std::bad_alloc();
        const bool ip = is_ip_address(host_);
        if (!ip) SSL_set_tlsext_host_name(ssl_.get(), host_.c_str());
        if (options.ssl_mode == SslMode::verify_identity) {
            X509_VERIFY_PARAM* param = SSL_get0_param(ssl_.get());
            X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
            const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host_.c_str())
                               : X509_VERIFY_PARAM_set1_host(param, host_.c_str(), 0);
            if (set != 1) throw UsageError("cannot check the name '" + host_ + "' of " + redacted_ + ": " + openssl_error());
        }
        SSL_set_connect_state(ssl_.get());
    }

    int fd() const noexcept override { return socket_.get(); }

    short handshake() override {
        const SigpipeBlock no_sigpipe;
        ERR_clear_error();
        const int done = SSL_do_handshake(ssl_.get());
        if (done == 1) {
            handshaken_ = true;
            return 0;
        }
        const int error = SSL_get_error(ssl_.get(), done);
        if (error == SSL_ERROR_WANT_READ) return POLLIN;
        if (error == SSL_ERROR_WANT_WRITE) return POLLOUT;
        const long verified = SSL_get_verify_result(ssl_.get());
        if (verified != X509_V_OK) {
            ERR_clear_error();
            throw UsageError("TLS to " + redacted_ + " refused, " + failed_check(verified, host_));
        }
        fail(error, "the TLS handshake");
    }

    StreamIo read(char* buffer, std::size_t size) override {
        ERR_clear_error();
        const int got = SSL_read(ssl_.get(), buffer, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
        if (got > 0) {
            answered_ = true;
            return {static_cast<std::size_t>(got), 0};
        }
        const int error = SSL_get_error(ssl_.get(), got);
        if (error == SSL_ERROR_WANT_READ) return {0, POLLIN};
        if (error == SSL_ERROR_WANT_WRITE) return {0, POLLOUT};
        fail(error, "a read");
    }

    StreamIo write(const char* data, std::size_t size) override {
        const SigpipeBlock no_sigpipe;
        ERR_clear_error();
        const int sent = SSL_write(ssl_.get(), data, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
        if (sent > 0) return {static_cast<std::size_t>(sent), 0};
        const int error = SSL_get_error(ssl_.get(), sent);
        if (error == SSL_ERROR_WANT_READ) return {0, POLLIN};
        if (error == SSL_ERROR_WANT_WRITE) return {0, POLLOUT};
        fail(error, "a write");
    }

    bool has_buffered() const noexcept override { return SSL_pending(ssl_.get()) > 0; }

private:
    [[noreturn]] void unusable(const char* key, const std::string& file) const {
        throw UsageError("cannot use the " + std::string(key) + " file '" + file + "' for " + redacted_ + ": " +
                         openssl_error());
    }

    // A failed TLS call: a check the server made (it refused our certificate, or the port is no TLS port)
    // is a UsageError; anything else is a lost connection.
    [[noreturn]] void fail(int error, const char* during) {
        // A server that refuses a client certificate under TLS 1.3 does so after the handshake: its alert
        // may come with a reset that the kernel delivers first, on our first request.
        if ((error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL) && client_certificate_ && !answered_ &&
            handshaken_) {
            ERR_clear_error();
            throw UsageError("TLS to " + redacted_ + " refused, client certificate refused: the server closed the "
                             "connection after the handshake, before any answer (it does not accept ssl-cert)");
        }
        if (error == SSL_ERROR_ZERO_RETURN) throw StreamLost("connection closed by the server (TLS close)");
        if (error == SSL_ERROR_SYSCALL) {
            const int saved = errno;
            ERR_clear_error();
            throw StreamLost(saved == 0 ? std::string("connection closed by the server during ") + during
                                        : std::string(std::strerror(saved)));
        }
        const unsigned long code = ERR_peek_last_error();
        const int reason = ERR_GET_REASON(code);
        const std::string text = openssl_error();
        if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG)
            throw UsageError("TLS to " + redacted_ + " failed: the server does not speak TLS on this port (" + text +
                             "); write redis:// for a plain port");
        if (reason == SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED || reason == SSL_R_SSLV3_ALERT_BAD_CERTIFICATE ||
            reason == SSL_R_TLSV1_ALERT_UNKNOWN_CA || reason == SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN ||
            reason == SSL_R_TLSV1_ALERT_ACCESS_DENIED || reason == SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED)
            throw UsageError("TLS to " + redacted_ + " refused, client certificate refused: " +
                             (client_certificate_ ? "the server does not accept ssl-cert"
                                                  : "the server asks for one; give ssl-cert and ssl-key") +
                             " (" + text + ")");
        throw StreamLost("TLS error during " + std::string(during) + ": " + text);
    }

    SocketFd socket_;
    std::string host_;
    std::string redacted_;
    bool client_certificate_;
    bool handshaken_ = false;
    bool answered_ = false;  // the server has sent application data
    std::unique_ptr<SSL_CTX, ContextFree> context_;
    std::unique_ptr<SSL, SslFree> ssl_;
};

}  // namespace

std::unique_ptr<Stream> tls_stream(SocketFd socket, const RedisOptions& options, const std::string& host) {
    return std::make_unique<TlsStream>(std::move(socket), options, host);
}

}  // namespace rowpump::redis
