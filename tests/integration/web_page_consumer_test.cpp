// The status page of `queue consume --http` in headless Chromium: its depths match `queue stats`, it lists
// the tasks this consumer saw go dead with their handler's error, and its "Requeue dead tasks" button
// (POST /requeue-dead) runs them again. Skipped only where chromium is not installed.
#include <rapidjson/document.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "integration/mysql_redis_fixture.hpp"
#include "integration/web_page_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

class WebPageConsumerTest : public MySqlRedisTest {};

int consumer_port(CliProcess& consumer) {
    const std::string marker = "POST /requeue-dead on http://127.0.0.1:";
    int port = 0;
    wait_until([&] {
        const std::string err = consumer.err();
        if (const auto at = err.find(marker); at != std::string::npos) port = std::atoi(err.c_str() + at + marker.size());
        return port > 0 || consumer.poll().has_value();
    }, 15000ms);
    return port;
}

TEST_F(WebPageConsumerTest, ShowsDepthsAndDeadTasksAndRequeuesThemFromItsButton) {
    if (const std::string missing = browser_missing(); !missing.empty()) GTEST_SKIP() << missing;
    // Tasks named bad-N fail while the flag file is missing: with one attempt each, they go dead.
    const std::string flag = temp_file("web_page_flag");
    std::filesystem::remove(flag);
    for (const char* payload : {"ok-1", "bad-1", "ok-2", "bad-2", "bad-3"}) redis_->command({"RPUSH", queue_, payload});
    redis_->command({"ZADD", queue_ + ":delayed", "99999999999999", "later"});  // stays delayed: a fixed depth
    CliProcess consumer({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                         "p=$(cat); case $p in bad*) test -e " + flag + " || { echo \"no flag for $p\" >&2; exit 7; } ;; esac",
                         "--max-attempts", "1", "--http", "127.0.0.1:0"});
    const int port = consumer_port(consumer);
    ASSERT_GT(port, 0) << consumer.describe();
    ASSERT_TRUE(wait_until([&] { return status_json(port)["dead"].GetUint64() == 3 && status_json(port)["processed"].GetUint64() == 2; },
                           20000ms))
        << http_request(port, "GET", "/status").body;

    Browser browser;
    ASSERT_TRUE(browser.ready());
    browser.go("http://127.0.0.1:" + std::to_string(port) + "/");
    PageView page(browser);
    const auto depth = [&](const std::string& state) {
        return page.integer("const v = document.getElementById('depth-" + state +
                            "').dataset.value; return v === undefined || v === '' ? -1 : Number(v)");
    };
    // The depths as `queue stats --json` counts them.
    const CliRun stats = run_rowpump({"queue", "stats", "--source", redis_url_, "--queue", queue_, "--json"});
    ASSERT_EQ(stats.exit_code, 0) << stats.describe();
    rapidjson::Document counted;
    counted.Parse(stats.out.c_str());
    ASSERT_FALSE(counted.HasParseError()) << stats.out;
    EXPECT_TRUE(page.eventually([&] { return depth("dead") == 3; })) << depth("dead");
    for (const char* state : {"ready", "delayed", "dead"})
        EXPECT_EQ(depth(state), static_cast<long long>(counted[state].GetUint64())) << state;
    EXPECT_EQ(depth("delayed"), 1);
    EXPECT_EQ(browser.script("return document.getElementById('queue').textContent"), "\"" + queue_ + "\"");

    // The dead tasks, newest first, with what the handler said.
    EXPECT_EQ(page.integer("return document.querySelectorAll('#dead-tasks tbody tr').length"), 3);
    const std::string newest = browser.script("return document.querySelector('#dead-tasks tbody tr').textContent");
    EXPECT_TRUE(has_text(newest, "bad-3")) << newest;
    EXPECT_TRUE(has_text(newest, "no flag for bad-3")) << newest;
    save_screenshot(browser, "web-page-consumer.png");

    // Requeue dead: with the flag there, the three run again and are processed.
    std::ofstream(flag) << "";
    browser.click("#requeue-dead");
    EXPECT_TRUE(page.eventually([&] {
        return has_text(browser.script("return document.getElementById('message').textContent"), "/requeue-dead: requeued 3");
    })) << browser.script("return document.getElementById('message').textContent");
    EXPECT_TRUE(wait_until([&] { return status_json(port)["processed"].GetUint64() == 5; }, 20000ms))
        << http_request(port, "GET", "/status").body;
    EXPECT_TRUE(page.eventually([&] { return depth("dead") == 0; })) << depth("dead");
    EXPECT_EQ(redis_->command({"LLEN", queue_ + ":dead"}).integer, 0);
    consumer.signal(SIGTERM);
    EXPECT_EQ(consumer.wait_for(20s), std::optional<int>(0)) << consumer.describe();
    std::filesystem::remove(flag);
}

TEST_F(WebPageConsumerTest, RequeueDeadRefusesABadLimit) {
    CliProcess consumer({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec", "true", "--http",
                         "127.0.0.1:0"});
    const int port = consumer_port(consumer);
    ASSERT_GT(port, 0) << consumer.describe();
    for (const char* bad : {"/requeue-dead?limit=x", "/requeue-dead?limit=", "/requeue-dead?limit=1&limit=2"}) {
        const HttpAnswer refused = http_request(port, "POST", bad);
        EXPECT_EQ(refused.status, 400) << bad;
        EXPECT_TRUE(has_text(refused.body, "/requeue-dead takes ?limit=N")) << refused.body;
    }
    redis_->command({"RPUSH", queue_ + ":dead", "gone-1"});
    redis_->command({"RPUSH", queue_ + ":dead", "gone-2"});
    const HttpAnswer one = http_request(port, "POST", "/requeue-dead?limit=1");
    EXPECT_EQ(one.status, 200);
    EXPECT_EQ(one.body, "requeued 1\n");
    consumer.signal(SIGTERM);
    EXPECT_EQ(consumer.wait_for(20s), std::optional<int>(0)) << consumer.describe();
}

}  // namespace
}  // namespace rowpump::test
