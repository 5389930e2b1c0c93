// rowpump's HTTP server in process, through raw sockets: what `curl -X POST URL` sends (no body, no
// Content-Length) is answered at once; slow clients neither block the others nor the server's end; the
// request's limits; the address's errors.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.hpp"
#include "http/request_parser.hpp"
#include "rowpump/error.hpp"
#include "raw_http_client.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using test::RawClient;
using test::SlowClient;

// Answers "METHOD PATH name=value ..." for every request.
std::unique_ptr<http::Server> echo_server() {
    return std::make_unique<http::Server>(
        "127.0.0.1:0",
        [](const http::Request& request) {
            std::string body = request.method + " " + request.path;
            for (const auto& [name, value] : request.query) body += " " + name + "=[" + value + "]";
            return http::Response{200, "text/plain", body};
        },
        "test endpoint");
}

struct Timed {
    std::string reply;
    Clock::duration took;
};

Timed round_trip(int port, const std::string& request, std::chrono::milliseconds limit = 3000ms) {
    const auto start = Clock::now();
    RawClient client(port);
    EXPECT_TRUE(client.connected());
    client.send(request);
    Timed out{client.read_all(limit), {}};
    out.took = Clock::now() - start;
    return out;
}

TEST(HttpServer, PostWithoutBodyOrContentLengthIsAnsweredAtOnce) {
    const auto server = echo_server();
    // Byte for byte what `curl -X POST http://127.0.0.1:PORT/pause` sends (curl 7.88).
    const std::string curl = "POST /pause HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server->port()) +
                             "\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n";
    const Timed answer = round_trip(server->port(), curl);
    EXPECT_EQ(test::status_of(answer.reply), 200) << answer.reply;
    EXPECT_EQ(test::body_of(answer.reply), "POST /pause");
    EXPECT_LT(answer.took, 500ms) << "the answer, and the server's close, come at once";
}

TEST(HttpServer, ReadsABodyOfContentLengthAndTheQueryInOrder) {
    const auto server = echo_server();
    const Timed answer = round_trip(server->port(),
                                  "POST /rate?value=%20%205&value=2&x+y=a%2Bb HTTP/1.1\r\nHost: h\r\n"
                                  "Content-Length: 5\r\n\r\nhello");
    EXPECT_EQ(test::status_of(answer.reply), 200) << answer.reply;
    EXPECT_EQ(test::body_of(answer.reply), "POST /rate value=[  5] value=[2] x y=[a+b]");
}

TEST(HttpServer, RefusesWhatIsOverItsLimitsOrMalformed) {
    const auto server = echo_server();
    const int port = server->port();
    EXPECT_EQ(test::status_of(round_trip(port, "GET / HTTP/1.1\r\nX: " + std::string(17 * 1024, 'a') + "\r\n\r\n").reply),
              431);
    EXPECT_EQ(test::status_of(round_trip(port, "POST / HTTP/1.1\r\nContent-Length: 70000\r\n\r\n").reply), 413);
    EXPECT_EQ(test::status_of(round_trip(port, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").reply), 501);
    EXPECT_EQ(test::status_of(round_trip(port, "GET /a?v=%zz HTTP/1.1\r\n\r\n").reply), 400);
    EXPECT_EQ(test::status_of(round_trip(port, "NONSENSE\r\n\r\n").reply), 400);
    EXPECT_EQ(test::status_of(round_trip(port, "GET / HTTP/1.1\r\nContent-Length: 1, 2\r\n\r\n").reply), 400);
}

TEST(HttpServer, SlowClientsBlockNeitherOtherRequestsNorTheServersEnd) {
    auto server = echo_server();
    const int port = server->port();
    std::vector<std::unique_ptr<SlowClient>> slow;
    for (int i = 0; i < 3; ++i) {
        slow.push_back(std::make_unique<SlowClient>(port));
        EXPECT_TRUE(slow.back()->client().connected());
    }
    // Each slow client is well inside its request: two header lines sent after the request line.
    const auto deadline = Clock::now() + 3s;
    const auto inside = [&] {
        for (const auto& client : slow)
            if (client->lines_sent() < 2) return false;
        return true;
    };
    while (!inside() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(inside());
    for (const char* request : {"GET /metrics HTTP/1.1\r\n\r\n", "POST /pause HTTP/1.1\r\n\r\n"}) {
        const Timed answer = round_trip(port, request, 2000ms);
        EXPECT_EQ(test::status_of(answer.reply), 200) << request;
        EXPECT_LT(answer.took, 500ms) << request;
    }
    const auto start = Clock::now();
    server.reset();
    EXPECT_LT(Clock::now() - start, 1s) << "the server ends at once, the slow clients still connected";
}

TEST(HttpServer, ASlowRequestIsDroppedAtItsDeadline) {
    const auto server = echo_server();
    SlowClient slow(server->port());
    EXPECT_TRUE(slow.client().connected());
    const auto start = Clock::now();
    const std::string reply = slow.client().read_all(8000ms);
    const auto took = Clock::now() - start;
    EXPECT_EQ(test::status_of(reply), 408) << reply;
    EXPECT_GT(took, 4s);
    EXPECT_LT(took, 6500ms) << "5 s for the whole request, however it trickles in";
}

TEST(HttpAddress, ResolvesBindsAndSaysWhyNot) {
    test::one_line_usage_error([] { http::Server("no-such-host.invalid:0", {}, "x"); }, "cannot resolve the host");
    test::one_line_usage_error([] { http::Server("127.0.0.1:99999", {}, "x"); }, "at most 65535");
    test::one_line_usage_error([] { http::Server("127.0.0.1:", {}, "x"); }, "the port must be a number");
    const auto server = echo_server();
    const std::string taken = test::one_line_usage_error(
        [&] { http::Server("127.0.0.1:" + std::to_string(server->port()), {}, "x"); }, "is taken");
    EXPECT_NE(taken.find("--http"), std::string::npos) << taken;
}

TEST(HttpAddress, KnowsLoopbackFromTheRest) {
    const auto loopback = http::listen_on("127.0.0.1", 0, "127.0.0.1:0", config::OptionId::http);
    EXPECT_TRUE(loopback.loopback);
    EXPECT_GT(loopback.port, 0);
    ::close(loopback.fd);
    const auto any = http::listen_on("0.0.0.0", 0, "0.0.0.0:0", config::OptionId::http);
    EXPECT_FALSE(any.loopback);
    ::close(any.fd);
}

TEST(RequestParser, NoContentLengthMeansNoBody) {
    const auto parsed = http::parse_request("POST /resume HTTP/1.1\r\nHost: x\r\n\r\n", {});
    ASSERT_EQ(parsed.state, http::Parsed::State::complete);
    EXPECT_EQ(parsed.request.method, "POST");
    EXPECT_EQ(parsed.request.path, "/resume");
    EXPECT_EQ(parsed.request.header("host"), std::vector<std::string>{"x"}) << "header names in any case";
    EXPECT_EQ(http::parse_request("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab", {}).state,
              http::Parsed::State::incomplete);
    EXPECT_EQ(http::parse_request("GET / HTTP/1.1\r\nHost: x\r\n", {}).state, http::Parsed::State::incomplete);
}

TEST(RequestParser, DecodesTheQueryInOrderWithDuplicates) {
    const auto pairs = http::decode_query("value=1&value=2&a=%41%2b&flag&=x");
    ASSERT_TRUE(pairs);
    const std::vector<std::pair<std::string, std::string>> expected{
        {"value", "1"}, {"value", "2"}, {"a", "A+"}, {"flag", ""}, {"", "x"}};
    EXPECT_EQ(*pairs, expected);
    EXPECT_FALSE(http::decode_query("a=%4"));
    EXPECT_FALSE(http::decode_query("a=%g1"));
}

}  // namespace
}  // namespace rowpump
