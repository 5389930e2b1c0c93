// Who may change a run over --http (http/post_guard.hpp): the token on loopback and other addresses, missing,
// wrong or right; the Origin check; tokens that cannot work; the token from the environment or its file;
// and the in-process server answering 401 with its challenge, and saying in its warning what is open.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "http/http_server.hpp"
#include "http/post_guard.hpp"
#include "raw_http_client.hpp"
#include "rowpump/log.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

const std::string token = "0123456789abcdef0123456789abcdef";

http::Request request(const std::string& method, const std::string& path,
                      std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::Request out;
    out.method = method;
    out.path = path;
    out.headers = std::move(headers);
    return out;
}

// The status of the refusal, 0 when the request passes.
int refused(const http::PostGuard& guard, const http::Request& request) {
    const auto refusal = guard.refusal(request);
    return refusal ? refusal->status : 0;
}

std::string refusal_text(const http::PostGuard& guard, const http::Request& request) {
    const auto refusal = guard.refusal(request);
    return refusal ? refusal->body : "";
}

TEST(PostGuard, LoopbackWithoutATokenTakesWhatCurlSends) {
    const http::PostGuard guard(true, "");
    EXPECT_FALSE(guard.has_token());
    EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Host", "127.0.0.1:8080"}})), 0);
    EXPECT_EQ(refused(guard, request("POST", "/stop")), 0) << "no Host either";
    EXPECT_EQ(refused(guard, request("GET", "/status")), 0);
}

TEST(PostGuard, OtherAddressesWithoutATokenRefusePostsAndSayHowToSetOne) {
    const http::PostGuard guard(false, "");
    const auto pause = request("POST", "/pause", {{"Host", "10.0.0.5:8080"}});
    EXPECT_EQ(refused(guard, pause), 403);
    const std::string text = refusal_text(guard, pause);
    EXPECT_NE(text.find("ROWPUMP_HTTP_TOKEN or ROWPUMP_HTTP_TOKEN_FILE"), std::string::npos) << text;
    EXPECT_NE(text.find("127.0.0.1"), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "one line: " << text;
    EXPECT_EQ(refused(guard, request("PUT", "/rate")), 403) << "every method that is not GET or HEAD";
    EXPECT_EQ(refused(guard, request("GET", "/status")), 0) << "GETs stay open";
    EXPECT_EQ(refused(guard, request("GET", "/")), 0);
    EXPECT_EQ(refused(guard, request("HEAD", "/metrics")), 0);
}

TEST(PostGuard, WithATokenPostsNeedItOnAnyAddress) {
    for (const bool loopback : {false, true}) {
        SCOPED_TRACE(loopback ? "loopback" : "other address");
        const http::PostGuard guard(loopback, token);
        EXPECT_TRUE(guard.has_token());
        const auto missing = request("POST", "/pause");
        EXPECT_EQ(refused(guard, missing), 401);
        const std::string text = refusal_text(guard, missing);
        EXPECT_NE(text.find("Authorization: Bearer TOKEN"), std::string::npos) << text;
        EXPECT_EQ(text.find(token), std::string::npos) << "the token is never shown";
        const std::string wrong = "0123456789abcdef0123456789abcdeX";
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer " + wrong}})), 401);
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer " + token + "0"}})), 401)
            << "longer";
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer " + token.substr(1)}})), 401)
            << "shorter";
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Basic " + token}})), 401);
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer"}})), 401);
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer "}})), 401);
        EXPECT_EQ(refused(guard, request("POST", "/pause",
                                         {{"Authorization", "Bearer " + token}, {"Authorization", "Bearer " + wrong}})),
                  401)
            << "two Authorization headers";
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer " + token}})), 0);
        EXPECT_EQ(refused(guard, request("POST", "/rate", {{"authorization", "bearer  " + token}})), 0)
            << "the field name and the scheme in any case, blanks between";
        EXPECT_EQ(refused(guard, request("GET", "/status")), 0) << "GETs need no token";
    }
}

TEST(PostGuard, RefusesPostsFromAPageOfAnotherOrigin) {
    for (const bool loopback : {false, true}) {
        SCOPED_TRACE(loopback ? "loopback" : "other address");
        const std::string host = loopback ? "127.0.0.1:8080" : "10.0.0.5:8080";
        const http::PostGuard guard(loopback, token);
        const std::pair<std::string, std::string> bearer{"Authorization", "Bearer " + token};
        const auto from = [&](const std::string& origin) {
            return request("POST", "/pause", {{"Host", host}, {"Origin", origin}, bearer});
        };
        EXPECT_EQ(refused(guard, from("http://" + host)), 0) << "the page the endpoint serves";
        EXPECT_EQ(refused(guard, from("HTTP://" + host)), 0);
        EXPECT_EQ(refused(guard, from("https://" + host)), 0) << "the same host behind a proxy that speaks TLS";
        EXPECT_EQ(refused(guard, from("http://evil.example")), 403);
        EXPECT_NE(refusal_text(guard, from("http://evil.example")).find("Origin: http://evil.example"),
                  std::string::npos);
        EXPECT_EQ(refused(guard, from("http://" + host + ".evil.example")), 403);
        EXPECT_EQ(refused(guard, from("http://127.0.0.1:9999")), 403) << "another port is another origin";
        EXPECT_EQ(refused(guard, from("null")), 403) << "a sandboxed frame or a file";
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Origin", "http://" + host}, bearer})), 403)
            << "an Origin and no Host to compare it with";
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Host", host}, {"Origin", "http://" + host},
                                                            {"Origin", "http://evil.example"}, bearer})),
                  403);
        EXPECT_EQ(refused(guard, request("GET", "/status", {{"Host", host}, {"Origin", "http://evil.example"}})), 0)
            << "GETs are not checked: the browser keeps another site from reading the answer";
    }
    // Without a token on loopback: the Origin is still checked, and a page loaded under another name that
    // resolves to 127.0.0.1 (DNS rebinding: Origin and Host agree) is refused too.
    const http::PostGuard open(true, "");
    EXPECT_EQ(refused(open, request("POST", "/stop", {{"Host", "127.0.0.1:8080"}, {"Origin", "http://evil.example"}})),
              403);
    EXPECT_EQ(refused(open, request("POST", "/stop", {{"Host", "evil.example:8080"},
                                                      {"Origin", "http://evil.example:8080"}})),
              403);
    EXPECT_EQ(refused(open, request("POST", "/stop", {{"Host", "localhost:8080"}, {"Origin", "http://localhost:8080"}})),
              0);
    EXPECT_EQ(refused(open, request("POST", "/stop", {{"Host", "[::1]:8080"}, {"Origin", "http://[::1]:8080"}})), 0);
}

TEST(PostGuard, RefusesTokensThatCannotWork) {
    test::one_line_usage_error([] { http::PostGuard(false, "short"); }, "at least 16 bytes");
    test::one_line_usage_error([] { http::PostGuard(false, "0123456789abcdef 0123"); }, "visible ASCII");
    const std::string error =
        test::one_line_usage_error([] { http::PostGuard(false, "0123456789abcdef\x01"); }, "ROWPUMP_HTTP_TOKEN");
    EXPECT_EQ(error.find("0123456789abcdef"), std::string::npos) << "the token is never shown: " << error;
}

// Sets environment variables for one test, and unsets them after it.
class Environment {
public:
    Environment& set(const char* name, const std::string& value) {
        ::setenv(name, value.c_str(), 1);
        names_.push_back(name);
        return *this;
    }
    ~Environment() {
        for (const char* name : names_) ::unsetenv(name);
    }

private:
    std::vector<const char*> names_;
};

TEST(PostGuard, ReadsTheTokenFromTheEnvironmentOrItsFile) {
    {
        Environment environment;
        environment.set("ROWPUMP_HTTP_TOKEN", token);
        EXPECT_TRUE(http::PostGuard::from_environment(false).has_token());
    }
    {
        const test::TempFile file(token + "\n");  // as `openssl rand -hex 16 > FILE` leaves it
        Environment environment;
        environment.set("ROWPUMP_HTTP_TOKEN_FILE", file.path());
        const http::PostGuard guard = http::PostGuard::from_environment(false);
        EXPECT_EQ(refused(guard, request("POST", "/pause", {{"Authorization", "Bearer " + token}})), 0);
    }
    {
        const test::TempFile empty("");
        Environment environment;
        environment.set("ROWPUMP_HTTP_TOKEN_FILE", empty.path());
        test::one_line_usage_error([] { http::PostGuard::from_environment(false); }, "ROWPUMP_HTTP_TOKEN_FILE");
    }
    {
        Environment environment;
        environment.set("ROWPUMP_HTTP_TOKEN_FILE", "/nonexistent/rowpump-token");
        test::one_line_usage_error([] { http::PostGuard::from_environment(true); }, "cannot read the HTTP token file");
    }
    {
        const test::TempFile short_token("abc\n");
        Environment environment;
        environment.set("ROWPUMP_HTTP_TOKEN_FILE", short_token.path());
        test::one_line_usage_error([] { http::PostGuard::from_environment(true); },
                                   "ROWPUMP_HTTP_TOKEN_FILE: the HTTP token needs at least 16 bytes");
    }
    EXPECT_FALSE(http::PostGuard::from_environment(false).has_token());
}

// The server itself: a POST without the token is answered 401 with its Bearer challenge and never reaches
// the handler; with it, it does.
TEST(PostGuard, TheServerAsksForTheTokenBeforeItsHandler) {
    Environment environment;
    environment.set("ROWPUMP_HTTP_TOKEN", token);
    http::Server server(
        "127.0.0.1:0", [&](const http::Request&) { return http::Response{200, "text/plain", "paused"}; }, "x");
    const auto send = [&](const std::string& extra) {
        test::RawClient client(server.port());
        client.send("POST /pause HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) + "\r\n" + extra +
                    "\r\n");
        return client.read_all(std::chrono::milliseconds(3000));
    };
    const std::string without = send("");
    EXPECT_EQ(test::status_of(without), 401) << without;
    EXPECT_NE(without.find("WWW-Authenticate: Bearer realm=\"rowpump\""), std::string::npos) << without;
    const std::string with = send("Authorization: Bearer " + token + "\r\n");
    EXPECT_EQ(test::status_of(with), 200) << with;
    EXPECT_EQ(test::body_of(with), "paused");
}

TEST(PostGuard, TheWarningSaysWhatIsOpenOnAnAddressOthersReach) {
    std::vector<std::pair<LogLevel, std::string>> seen;
    set_log_handler([&](LogLevel level, std::string_view message) { seen.emplace_back(level, message); });
    const auto warned = [&](const std::string& text) {
        return std::count_if(seen.begin(), seen.end(), [&](const auto& line) {
            return line.first == LogLevel::warning && line.second.find(text) != std::string::npos;
        });
    };
    { http::Server loopback("127.0.0.1:0", {}, "x"); }
    EXPECT_EQ(warned("reachable from other machines"), 0);
    { http::Server everywhere("0.0.0.0:0", {}, "x"); }
    EXPECT_EQ(warned("no token is set: POSTs (pause, stop, rate, ...) are refused until ROWPUMP_HTTP_TOKEN"), 1);
    EXPECT_EQ(warned("/status and /metrics are open"), 1);
    {
        Environment environment;
        environment.set("ROWPUMP_HTTP_TOKEN", token);
        http::Server everywhere("0.0.0.0:0", {}, "x");
    }
    set_log_handler({});
    EXPECT_EQ(warned("POSTs (pause, stop, rate, ...) need the token"), 1);
    EXPECT_EQ(warned(token), 0) << "the token is never logged";
}

}  // namespace
}  // namespace rowpump
