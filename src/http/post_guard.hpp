#pragma once
// Who may change a run over --http: every request but GET and HEAD (POST /pause, /stop, /rate, ...) passes
// here before its handler. Two checks (docs/throttling.md, "Who may send POSTs"):
//  - the token: with one set (ROWPUMP_HTTP_TOKEN or ROWPUMP_HTTP_TOKEN_FILE, never argv), a request must
//    send `Authorization: Bearer TOKEN` (401 otherwise), on any address; without one, an address other
//    machines can reach takes no such request (403), and loopback takes them as before (`curl -X POST
//    http://127.0.0.1:PORT/pause`). GETs (the page, /status, /metrics) stay open.
//  - the origin: a request whose Origin header is not the endpoint's own (http or https://HOST:PORT, HOST:PORT
//    the Host header it was sent to) is refused (403), so that no other site's page can make a browser send
//    it; on loopback the Host must be a loopback name too (DNS rebinding). curl sends no Origin.
#include <optional>
#include <string>
#include <string_view>

#include "crypto/hmac.hpp"
#include "http/http_server.hpp"

namespace rowpump::http {

class PostGuard {
public:
    // `token` "" for none. A token shorter than 16 bytes, or with a byte a header cannot carry (anything but
    // visible ASCII), is a UsageError naming `source`, the variable it came from.
    PostGuard(bool loopback, std::string_view token, std::string_view source = "ROWPUMP_HTTP_TOKEN");
    // The token of ROWPUMP_HTTP_TOKEN, or of the file ROWPUMP_HTTP_TOKEN_FILE names (env_secret.hpp).
    static PostGuard from_environment(bool loopback);

    bool has_token() const { return token_digest_.has_value(); }
    // True for requests that pass through the guard: every method but GET and HEAD.
    static bool guards(const Request& request);
    // The answer that refuses `request` (401 or 403, one line saying what to send or do), or nullopt.
    std::optional<Response> refusal(const Request& request) const;

private:
    bool loopback_;
    // The token's SHA-256: a token sent is hashed and compared in constant time, so neither where it differs
    // nor its length shows in the time taken; the token itself is not kept.
    std::optional<crypto::Digest> token_digest_;
};

}  // namespace rowpump::http
