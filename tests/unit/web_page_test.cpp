// The status page's files as the binary serves them (http/web_page.hpp): the routes, their types, that
// the page loads its script and style as files of their own (the Content-Security-Policy refuses inline
// ones), that every element the script looks up by id is on the page, and that every answer of the server
// carries the policy.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "http/http_server.hpp"
#include "http/web_page.hpp"
#include "raw_http_client.hpp"

namespace rowpump {
namespace {

http::Response get(const std::string& path) {
    const auto page = http::web_page({"GET", path, {}, {}});
    EXPECT_TRUE(page.has_value()) << path;
    return page.value_or(http::Response{});
}

TEST(WebPage, ServesThePageItsScriptAndItsStyle) {
    EXPECT_EQ(get("/").content_type, "text/html; charset=utf-8");
    EXPECT_EQ(get("/index.html").body, get("/").body);
    EXPECT_EQ(get("/app.js").content_type, "text/javascript; charset=utf-8");
    EXPECT_EQ(get("/style.css").content_type, "text/css; charset=utf-8");
    for (const char* path : {"/", "/app.js", "/style.css"}) EXPECT_GT(get(path).body.size(), 500u) << path;
    EXPECT_FALSE(http::web_page({"POST", "/", {}, {}}).has_value());
    EXPECT_FALSE(http::web_page({"GET", "/status", {}, {}}).has_value());
    EXPECT_FALSE(http::web_page({"GET", "/app.js.map", {}, {}}).has_value());
}

TEST(WebPage, LoadsItsScriptAndStyleAsFilesAndHasNoInlineScript) {
    const std::string html = get("/").body;
    EXPECT_NE(html.find("<script src=\"/app.js\" defer></script>"), std::string::npos);
    EXPECT_NE(html.find("<link rel=\"stylesheet\" href=\"/style.css\">"), std::string::npos);
    EXPECT_EQ(html.find("<script>"), std::string::npos);
    EXPECT_EQ(html.find(" onclick="), std::string::npos);
    EXPECT_EQ(html.find(" style="), std::string::npos);
    // Its one absolute URL is SVG's namespace, a name and not an address: the script fetches nothing else.
    std::string script = get("/app.js").body;
    for (std::size_t at; (at = script.find("http://www.w3.org/2000/svg")) != std::string::npos;) script.erase(at, 26);
    EXPECT_EQ(script.find("http://"), std::string::npos) << "the script talks to its own origin only";
    EXPECT_EQ(script.find("https://"), std::string::npos) << "the script talks to its own origin only";
}

TEST(WebPage, EveryIdTheScriptLooksUpIsOnThePage) {
    const std::string html = get("/").body;
    const std::string script = get("/app.js").body;
    std::set<std::string> ids;
    const std::regex lookup(R"(\$\('([a-z_-]+)'\))");
    for (auto it = std::sregex_iterator(script.begin(), script.end(), lookup); it != std::sregex_iterator(); ++it)
        ids.insert((*it)[1]);
    const std::regex shown(R"(show\('([a-z_-]+)')");
    for (auto it = std::sregex_iterator(script.begin(), script.end(), shown); it != std::sregex_iterator(); ++it)
        ids.insert((*it)[1]);
    for (const char* state : {"ready", "in_flight", "delayed", "done", "dead"}) ids.insert(std::string("depth-") + state);
    EXPECT_GT(ids.size(), 30u);
    for (const std::string& id : ids) EXPECT_NE(html.find("id=\"" + id + "\""), std::string::npos) << id;
}

TEST(WebPage, EveryAnswerCarriesThePolicy) {
    http::Server server("127.0.0.1:0", [](const http::Request&) { return http::Response{404, "text/plain", "no\n"}; },
                        "test endpoint");
    test::RawClient client(server.port());
    ASSERT_TRUE(client.connected());
    client.send("GET /anything HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string reply = client.read_all(std::chrono::milliseconds(3000));
    EXPECT_NE(reply.find("\r\nContent-Security-Policy: default-src 'self'; script-src 'self';"), std::string::npos)
        << reply;
    EXPECT_NE(reply.find("frame-ancestors 'none'"), std::string::npos) << reply;
    EXPECT_NE(reply.find("\r\nX-Content-Type-Options: nosniff\r\n"), std::string::npos) << reply;
    EXPECT_NE(reply.find("\r\nCache-Control: no-store\r\n"), std::string::npos) << reply;
}

}  // namespace
}  // namespace rowpump
