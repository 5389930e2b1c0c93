#include "http/post_guard.hpp"

#include <algorithm>
#include <cstdlib>

#include "env_secret.hpp"
#include "http/request_parser.hpp"
#include "rowpump/error.hpp"

namespace rowpump::http {

namespace {

constexpr const char* send_token =
    "send the header 'Authorization: Bearer TOKEN', TOKEN being what ROWPUMP_HTTP_TOKEN (or the file named by "
    "ROWPUMP_HTTP_TOKEN_FILE) holds where rowpump runs";

Response refuse(int status, const std::string& line) { return {status, "text/plain", line + "\n"}; }

// The host of a Host header ("h:8080", "[::1]:8080", "h"), without its port and brackets.
std::string_view host_name(std::string_view host) {
    if (host.starts_with('[')) {
        const auto close = host.find(']');
        return close == std::string_view::npos ? host : host.substr(1, close - 1);
    }
    return host.substr(0, host.find(':'));
}

bool loopback_name(std::string_view host) {
    const std::string_view name = host_name(host);
    if (iequals(name, "localhost") || name == "::1") return true;
    return name.starts_with("127.") && name.find_first_not_of("0123456789.") == std::string_view::npos;
}

// The value of an Origin header for a log-free answer: at most 100 bytes, printable.
std::string shown(std::string_view text) {
    std::string out(text.substr(0, 100));
    std::replace_if(out.begin(), out.end(), [](char c) { return c < 0x20 || c > 0x7e; }, '?');
    return text.size() > 100 ? out + "..." : out;
}

}  // namespace

PostGuard::PostGuard(bool loopback, std::string_view token, std::string_view source) : loopback_(loopback) {
    if (token.empty()) return;
    // A token is tried as often as a client can connect: 16 bytes is the least no guessing reaches.
    if (token.size() < 16)
        throw UsageError(std::string(source) + ": the HTTP token needs at least 16 bytes; make one with "
                         "`openssl rand -hex 32`");
    if (std::any_of(token.begin(), token.end(), [](char c) { return c < 0x21 || c > 0x7e; }))
        throw UsageError(std::string(source) + ": the HTTP token must be visible ASCII, no blank or control "
                         "character (a header carries it); make one with `openssl rand -hex 32`");
    token_digest_ = crypto::sha256(token);
}

PostGuard PostGuard::from_environment(bool loopback) {
    const std::string token = secret_from_env("ROWPUMP_HTTP_TOKEN", "ROWPUMP_HTTP_TOKEN_FILE", "HTTP token",
                                              EmptySecretFile::refused);
    const char* variable = std::getenv("ROWPUMP_HTTP_TOKEN");
    const bool from_file = !token.empty() && (variable == nullptr || *variable == '\0');
    return PostGuard(loopback, token, from_file ? "ROWPUMP_HTTP_TOKEN_FILE" : "ROWPUMP_HTTP_TOKEN");
}

bool PostGuard::guards(const Request& request) { return request.method != "GET" && request.method != "HEAD"; }

std::optional<Response> PostGuard::refusal(const Request& request) const {
    if (!guards(request)) return std::nullopt;
    const std::string what = request.method + " " + request.path;
    // The origin first: a page of another site is refused whatever it sends.
    const std::vector<std::string> origins = request.header("Origin");
    if (origins.size() > 1) return refuse(403, what + " is refused: it has more than one Origin header");
    if (!origins.empty()) {
        const std::vector<std::string> hosts = request.header("Host");
        const std::string host = hosts.size() == 1 ? hosts.front() : "";
        const bool own = !host.empty() && (iequals(origins.front(), "http://" + host) ||
                                           iequals(origins.front(), "https://" + host));
        if (!own)
            return refuse(403, what + " is refused: it came from a page of another origin (Origin: " +
                                   shown(origins.front()) + "); only this endpoint's own page (GET /) or a "
                                   "client that sends no Origin, such as curl, may send it");
        if (loopback_ && !loopback_name(host))
            return refuse(403, what + " is refused: this endpoint listens on loopback, but the page that sent it "
                                   "was loaded as " + shown(host) + "; open it as http://127.0.0.1:PORT/ or "
                                   "http://localhost:PORT/");
    }
    if (!token_digest_) {
        if (loopback_) return std::nullopt;
        return refuse(403, what + " is refused: this endpoint is reachable from other machines and has no token; "
                              "set ROWPUMP_HTTP_TOKEN or ROWPUMP_HTTP_TOKEN_FILE where rowpump runs (then send "
                              "'Authorization: Bearer TOKEN'), or bind --http to 127.0.0.1");
    }
    const std::vector<std::string> authorizations = request.header("Authorization");
    if (authorizations.empty()) return refuse(401, what + " needs the endpoint's token: " + send_token);
    if (authorizations.size() > 1) return refuse(401, what + " has more than one Authorization header: " + send_token);
    const std::string_view sent = authorizations.front();
    const auto blank = sent.find(' ');
    const auto start = blank == std::string_view::npos ? blank : sent.find_first_not_of(' ', blank);
    if (start == std::string_view::npos || !iequals(sent.substr(0, blank), "Bearer"))
        return refuse(401, what + " sent an Authorization header that is not 'Bearer TOKEN': " + send_token);
    const std::string_view token = sent.substr(start);
    const crypto::Digest digest = crypto::sha256(token);
    if (!crypto::equal_in_constant_time(digest.data(), token_digest_->data(), digest.size()))
        return refuse(401, what + " sent a token that is not the endpoint's: " + send_token);
    return std::nullopt;
}

}  // namespace rowpump::http
