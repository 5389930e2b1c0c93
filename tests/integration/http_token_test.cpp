// The token of --http (docs/throttling.md, "Who may send POSTs") on a real run, sent as a user sends it:
// `curl -X POST URL` with and without `-H 'Authorization: Bearer TOKEN'`, no body.
//  - on an address of this machine that others reach (the default route's), with ROWPUMP_HTTP_TOKEN: a POST
//    without the token or with a wrong one is a 401 that says what to send and changes nothing; with it,
//    pause, resume and stop work; a POST from another site's page (Origin) is a 403 even with the token;
//    GETs need none; the log warns, and never shows the token;
//  - the same address without a token: POSTs are a 403 that says to set one, GETs are served;
//  - loopback with a token (ROWPUMP_HTTP_TOKEN_FILE): required there too.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstdio>
#include <fstream>

#include "integration/curl_command.hpp"
#include "integration/throttle_fixture.hpp"

namespace rowpump::test {
namespace {

const std::string token = "4f0c1d9e8b7a6f5e4d3c2b1a09f8e7d6";

// The name of the interface the default route leaves by (/proc/net/route: destination 00000000), or "".
std::string default_route_interface() {
    std::ifstream routes("/proc/net/route");
    std::string line;
    std::getline(routes, line);  // the header
    while (std::getline(routes, line)) {
        char name[64] = {};
        unsigned long destination = 1;
        if (std::sscanf(line.c_str(), "%63s %lx", name, &destination) == 2 && destination == 0) return name;
    }
    return "";
}

// An IPv4 address of this machine that is not loopback: the default route interface's, else any interface's
// that is up; "" when there is none (the reason in `why`).
std::string reachable_address(std::string& why) {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) {
        why = "getifaddrs failed";
        return "";
    }
    const std::string preferred = default_route_interface();
    std::string chosen, any;
    for (const ifaddrs* entry = list; entry; entry = entry->ifa_next) {
        if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET) continue;
        if (!(entry->ifa_flags & IFF_UP) || (entry->ifa_flags & IFF_LOOPBACK)) continue;
        char text[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr, text, sizeof text);
        if (std::string(text).starts_with("127.")) continue;
        if (chosen.empty() && entry->ifa_name == preferred) chosen = text;
        if (any.empty()) any = text;
    }
    ::freeifaddrs(list);
    if (chosen.empty()) chosen = any;
    if (chosen.empty()) why = "this machine has no IPv4 address but loopback (no default route interface is up)";
    return chosen;
}

// The port the run's endpoint on `host` listens on, from its log line.
int port_on(CliProcess& run, const std::string& host) {
    const std::string marker = ") on http://" + host + ":";
    int port = 0;
    wait_until([&] {
        if (run.poll()) return true;
        const std::string err = run.err();
        if (const auto at = err.find(marker); at != std::string::npos) port = std::atoi(err.c_str() + at + marker.size());
        return port > 0;
    }, std::chrono::milliseconds(15000));
    if (port <= 0) ADD_FAILURE() << "no endpoint on " << host << "\n" << run.describe();
    return port;
}

std::string state_of(const std::string& url) {
    const CurlAnswer answer = curl("GET", url + "/status");
    rapidjson::Document json;
    json.Parse(answer.body.c_str());
    return !json.HasParseError() && json.IsObject() && json.HasMember("state") ? json["state"].GetString() : "";
}

class HttpTokenTest : public ThrottleTest {
protected:
    // 40,000 rows at 1000 rows/s: about 40 s unless stopped.
    std::vector<std::string> slow_backfill(const std::string& http) {
        return {"backfill", "--mysql", mysql_url_, "--table", numbered_table(40000), "--sink", "file:" + output_,
                "--overwrite", "--workers", "2", "--page-size", "100", "--max-page-size", "100", "--page-time-ms",
                "0", "--rate", "1000", "--http", http};
    }
};

TEST_F(HttpTokenTest, PostsNeedTheTokenOnAnAddressOthersReach) {
    std::string why;
    const std::string host = reachable_address(why);
    if (host.empty()) GTEST_SKIP() << why;
    CliProcess run(slow_backfill(host + ":0"), {{"ROWPUMP_HTTP_TOKEN", token}, {"ROWPUMP_HTTP_TOKEN_FILE", std::nullopt}});
    const int port = port_on(run, host);
    ASSERT_GT(port, 0);
    const std::string url = "http://" + host + ":" + std::to_string(port);
    const std::string bearer = "Authorization: Bearer " + token;

    // GETs need no token.
    EXPECT_EQ(curl("GET", url + "/status").status, 200);
    EXPECT_EQ(curl("GET", url + "/").status, 200);
    EXPECT_EQ(curl("GET", url + "/metrics").status, 200);

    // No token, a wrong one, another scheme: 401, saying what to send; the run goes on.
    const CurlAnswer bare = curl("POST", url + "/pause");
    EXPECT_EQ(bare.status, 401) << bare.body;
    EXPECT_TRUE(contains(bare.body, "send the header 'Authorization: Bearer TOKEN'")) << bare.body;
    EXPECT_TRUE(contains(bare.body, "ROWPUMP_HTTP_TOKEN")) << bare.body;
    EXPECT_EQ(curl("POST", url + "/pause", {"Authorization: Bearer 00000000000000000000000000000000"}).status, 401);
    EXPECT_EQ(curl("POST", url + "/stop", {"Authorization: Basic " + token}).status, 401);
    EXPECT_EQ(curl("POST", url + "/rate?value=5", {}).status, 401);
    EXPECT_EQ(state_of(url), "running") << "refused POSTs change nothing";

    // Another site's page, with the right token: 403.
    const CurlAnswer cross = curl("POST", url + "/pause", {bearer, "Origin: http://evil.example"});
    EXPECT_EQ(cross.status, 403) << cross.body;
    EXPECT_EQ(state_of(url), "running");

    // The token: pause, resume, stop.
    const CurlAnswer paused = curl("POST", url + "/pause", {bearer});
    EXPECT_EQ(paused.status, 200) << paused.body;
    EXPECT_EQ(paused.body, "paused\n");
    EXPECT_EQ(state_of(url), "paused");
    EXPECT_EQ(curl("POST", url + "/resume", {bearer}).status, 200);
    EXPECT_EQ(curl("POST", url + "/rate?value=2000", {bearer}).status, 200);
    const CurlAnswer own_page = curl("POST", url + "/rate?value=1000", {bearer, "Origin: " + url});
    EXPECT_EQ(own_page.status, 200) << "the endpoint's own page: " << own_page.body;
    EXPECT_EQ(curl("POST", url + "/stop", {bearer}).status, 200);
    EXPECT_EQ(finish(run), 3) << run.describe();

    const std::string err = run.err();
    EXPECT_TRUE(contains(err, "is reachable from other machines: POSTs (pause, stop, rate, ...) need the token"))
        << err;
    EXPECT_TRUE(contains(err, "/status and /metrics are open")) << err;
    EXPECT_FALSE(contains(err, token)) << "the token is never printed";
    EXPECT_FALSE(contains(run.out(), token));
}

TEST_F(HttpTokenTest, WithoutATokenAnAddressOthersReachRefusesPostsAndServesGets) {
    std::string why;
    const std::string host = reachable_address(why);
    if (host.empty()) GTEST_SKIP() << why;
    CliProcess run(slow_backfill(host + ":0"),
                   {{"ROWPUMP_HTTP_TOKEN", std::nullopt}, {"ROWPUMP_HTTP_TOKEN_FILE", std::nullopt}});
    const int port = port_on(run, host);
    ASSERT_GT(port, 0);
    const std::string url = "http://" + host + ":" + std::to_string(port);
    const CurlAnswer refused = curl("POST", url + "/pause");
    EXPECT_EQ(refused.status, 403) << refused.body;
    EXPECT_TRUE(contains(refused.body, "set ROWPUMP_HTTP_TOKEN or ROWPUMP_HTTP_TOKEN_FILE")) << refused.body;
    EXPECT_EQ(curl("POST", url + "/stop", {"Authorization: Bearer " + token}).status, 403)
        << "no token is set: none is right";
    EXPECT_EQ(state_of(url), "running");
    EXPECT_EQ(curl("GET", url + "/").status, 200);
    EXPECT_TRUE(contains(run.err(), "no token is set: POSTs (pause, stop, rate, ...) are refused")) << run.err();
    run.signal(SIGTERM);
    EXPECT_EQ(finish(run), 3) << run.describe();
}

TEST_F(HttpTokenTest, ATokenIsRequiredOnLoopbackTooOnceItIsSet) {
    const std::string file = temp_file("http_token");
    std::ofstream(file) << token << "\n";  // as `openssl rand -hex 16 > FILE` leaves it
    CliProcess run(slow_backfill("127.0.0.1:0"),
                   {{"ROWPUMP_HTTP_TOKEN", std::nullopt}, {"ROWPUMP_HTTP_TOKEN_FILE", file}});
    const int port = port_on(run, "127.0.0.1");
    ASSERT_GT(port, 0);
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    EXPECT_EQ(curl("POST", url + "/pause").status, 401);
    EXPECT_EQ(state_of(url), "running");
    EXPECT_EQ(curl("POST", url + "/stop", {"Authorization: Bearer " + token}).status, 200);
    EXPECT_EQ(finish(run), 3) << run.describe();
    EXPECT_TRUE(contains(run.err(), "(POSTs need the token of ROWPUMP_HTTP_TOKEN[_FILE])")) << run.err();
    std::remove(file.c_str());
}

}  // namespace
}  // namespace rowpump::test
