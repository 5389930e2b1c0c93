// The status page of --http (GET /, docs/web-page.md) in headless Chromium during a real run:
//  - a backfill: the page's range bars and rows figure match /status, its Pause button pauses the run (and
//    /status and the page say so, and no row lands meanwhile), Resume resumes it, the rate field sets the
//    cap, Stop (after its confirm dialog) stops the run with exit 3; a screenshot is saved;
//  - the page's answers carry the Content-Security-Policy that keeps its script its own.
//  - with a token (ROWPUMP_HTTP_TOKEN), the page asks for it once, on the page, when a POST is answered
//    401, keeps it for the tab and sends it with every POST after.
// The consumer's page is in web_page_consumer_test.cpp. Skipped only where chromium is not installed.
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>

#include "integration/throttle_fixture.hpp"
#include "integration/web_page_fixture.hpp"

namespace rowpump::test {
namespace {

class WebPageTest : public ThrottleTest {
protected:
    // 40,000 rows in 8 ranges, 4 workers, pages of 100 rows at 1000 rows/s: about 40 s unless stopped.
    std::vector<std::string> slow_backfill() {
        return {"backfill",      "--mysql",       mysql_url_, "--table",      numbered_table(40000),
                "--sink",        "file:" + output_, "--overwrite", "--workers", "4",
                "--partitions",  "8",             "--page-size", "100",       "--max-page-size", "100",
                "--page-time-ms", "0",            "--rate",      "1000",      "--http",    "127.0.0.1:0"};
    }
};

TEST_F(WebPageTest, ServesThePageItsScriptAndStyleWithARestrictivePolicy) {
    CliProcess run(slow_backfill());
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    for (const auto& [path, type] : {std::pair{"/", "text/html; charset=utf-8"},
                                     std::pair{"/app.js", "text/javascript; charset=utf-8"},
                                     std::pair{"/style.css", "text/css; charset=utf-8"}}) {
        const WebAnswer answer = web_request(port, "GET", path, "");
        EXPECT_EQ(answer.status, 200) << path;
        EXPECT_TRUE(contains(answer.headers, std::string("Content-Type: ") + type)) << answer.headers;
        EXPECT_TRUE(contains(answer.headers, "Content-Security-Policy: default-src 'self'; script-src 'self';"))
            << answer.headers;
        EXPECT_TRUE(contains(answer.headers, "X-Content-Type-Options: nosniff")) << answer.headers;
    }
    const WebAnswer page = web_request(port, "GET", "/", "");
    EXPECT_TRUE(contains(page.body, "<script src=\"/app.js\" defer></script>")) << "the script is its own file";
    EXPECT_FALSE(contains(page.body, "<script>")) << "no inline script: the policy would refuse it";
    EXPECT_EQ(web_request(port, "POST", "/", "").status, 404) << "the page is GET only";
    ASSERT_EQ(http_request(port, "POST", "/stop").status, 200);
    EXPECT_EQ(finish(run), 3) << run.describe();
}

TEST_F(WebPageTest, ShowsTheRunAndPausesResumesAndStopsItFromItsButtons) {
    if (const std::string missing = browser_missing(); !missing.empty()) GTEST_SKIP() << missing;
    CliProcess run(slow_backfill());
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    Browser browser(1200, 1250);  // tall enough for the whole page in the screenshot
    ASSERT_TRUE(browser.ready());
    browser.go("http://127.0.0.1:" + std::to_string(port) + "/");
    PageView page(browser);

    // The bars: one per range of /status (the page draws each poll's; both are read until they agree,
    // since a range split off between the two reads adds one).
    EXPECT_TRUE(page.eventually([&] { return page.integer("return document.querySelectorAll('#ranges .range').length") ==
                                             static_cast<long long>(status_json(port)["ranges"].Size()); }))
        << "bars " << browser.script("return document.querySelectorAll('#ranges .range').length");
    EXPECT_TRUE(page.eventually([&] {
        return page.integer("return document.querySelectorAll('#ranges .range.phase-reading').length") == 4;
    })) << "4 workers read 4 of the 8 ranges";
    // The rows figure: at least what /status said before it was read (the page polls once a second), at
    // most what /status says after.
    const std::uint64_t before = status(port).rows_written;
    EXPECT_TRUE(page.eventually([&] { return page.integer(rows_shown) >= static_cast<long long>(before); }));
    const long long shown = page.integer(rows_shown);
    EXPECT_GE(shown, static_cast<long long>(before));
    EXPECT_LE(shown, static_cast<long long>(status(port).rows_written));
    EXPECT_EQ(browser.script("return document.getElementById('state').dataset.value"), "\"running\"");

    // Pause: the gate is closed and no page is being written, so from then on no row lands (the pages
    // read meanwhile wait at the gate, or the readers behind them; throttle_gate.hpp); /status and the page
    // say paused, and the rows the page shows stop where /status's stopped.
    browser.click("#pause");
    const Status held =
        wait_for_status(port, 10s, [](const Status& s) { return s.state == "paused" && s.pages_writing == 0; });
    ASSERT_EQ(held.state, "paused") << held.reason;
    ASSERT_EQ(held.pages_writing, 0);
    EXPECT_TRUE(page.eventually([&] { return browser.script("return document.getElementById('state').dataset.value") ==
                                             "\"paused\""; }));
    EXPECT_TRUE(page.eventually([&] { return page.integer(rows_shown) == static_cast<long long>(held.rows_written); }));
    EXPECT_EQ(status(port).rows_written, held.rows_written) << "no row lands while paused";
    EXPECT_TRUE(page.eventually([&] {
        return contains(browser.script("return document.getElementById('message').textContent"), "/pause: paused");
    }));

    // Resume, and a new rate from the rate field.
    browser.click("#resume");
    EXPECT_TRUE(wait_for_status(port, 10s, [&](const Status& s) {
        return s.state == "running" && s.rows_written > held.rows_written;
    }).rows_written > held.rows_written);
    browser.type("#rate-value", "1500");
    browser.click("#rate-set");
    EXPECT_TRUE(page.eventually([&] { return status_json(port)["rate_limit"].GetDouble() == 1500; }));

    // The chart has a dozen points once a dozen polls came in; then the screenshot.
    EXPECT_TRUE(page.eventually([&] { return page.integer("return document.querySelectorAll('#chart polyline').length") == 1 &&
                                             page.integer("return document.querySelector('#chart polyline')"
                                                          ".getAttribute('points').split(' ').length") >= 12; },
                                20s));
    browser.script("window.scrollTo(0, 0); return 0");
    save_screenshot(browser, "web-page.png");

    // Stop, after the page's confirm dialog: exit 3, as POST /stop.
    browser.click("#stop");
    browser.accept_dialog();
    EXPECT_EQ(finish(run), 3) << run.describe();
    EXPECT_TRUE(contains(run.err(), "stop requested over HTTP (POST /stop)")) << run.err();
}

TEST_F(WebPageTest, AsksForTheTokenOnceAndSendsItWithEveryPost) {
    if (const std::string missing = browser_missing(); !missing.empty()) GTEST_SKIP() << missing;
    const std::string token = "7e3a9c0b5d1f4a2e8c6b0d9f3a7e1c5b";
    CliProcess run(slow_backfill(), {{"ROWPUMP_HTTP_TOKEN", token}, {"ROWPUMP_HTTP_TOKEN_FILE", std::nullopt}});
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    Browser browser;
    ASSERT_TRUE(browser.ready());
    browser.go("http://127.0.0.1:" + std::to_string(port) + "/");
    PageView page(browser);
    const auto shown = [&](const char* id) {
        return browser.script(std::string("return document.getElementById('") + id + "').hidden") == "false";
    };
    const auto text = [&](const char* id) {
        return browser.script(std::string("return document.getElementById('") + id + "').textContent");
    };
    EXPECT_TRUE(page.eventually([&] { return page.integer(rows_shown) >= 0; }));
    EXPECT_FALSE(shown("token-form")) << "nothing is asked before a POST needs it";

    // Pause is refused (401): the page says why and asks for the token; the run goes on. Given the token,
    // the pause it held back goes out with it.
    const auto pause_asked_for_token = [&](const std::string& why) {
        browser.click("#pause");
        EXPECT_TRUE(page.eventually([&] { return shown("token-form"); }));
        EXPECT_TRUE(contains(text("message"), why)) << text("message");
        EXPECT_EQ(status(port).state, "running");
        browser.type("#token-value", token);
        browser.click("#token-set");
        EXPECT_EQ(wait_for_status(port, 10s, [](const Status& s) { return s.state == "paused"; }).state, "paused");
    };
    pause_asked_for_token("/pause: POST /pause needs the endpoint's token");
    EXPECT_TRUE(page.eventually([&] { return contains(text("message"), "/pause: paused"); })) << text("message");
    EXPECT_FALSE(shown("token-form"));
    EXPECT_EQ(browser.script("return sessionStorage.getItem('rowpump-http-token') !== null"), "true");

    // Kept for the tab: Resume needs no asking.
    browser.click("#resume");
    EXPECT_EQ(wait_for_status(port, 10s, [](const Status& s) { return s.state == "running"; }).state, "running");
    EXPECT_FALSE(shown("token-form"));

    // A wrong token kept (changed under the page) is dropped and asked for again.
    browser.script("sessionStorage.setItem('rowpump-http-token', 'wrong-wrong-wrong-wrong'); return 0");
    pause_asked_for_token("/pause: POST /pause sent a token that is not the endpoint's");
    ASSERT_EQ(http_request(port, "POST", "/stop").status, 401) << "curl without the token is refused too";
    run.signal(SIGTERM);
    EXPECT_EQ(finish(run), 3) << run.describe();
}

}  // namespace
}  // namespace rowpump::test
