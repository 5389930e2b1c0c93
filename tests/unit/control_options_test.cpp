// The controls of issue 29 that need no database: the job file's new throttle fields and
// progress_interval reach the JobSpec (and a bad one is a ConfigError), a page size set over HTTP
// overrides the adaptive size, and the --throttle-http check reads its URL and asks a real HTTP server
// (rowpump's own, in this process) for its status code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "http/http_server.hpp"
#include "http/status_check.hpp"
#include "paging/page_size.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;

// A job file reading orders to stdout, with `more_lines` at its end.
test::TempFile job_file(const std::string& more_lines) {
    return test::TempFile("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\nsink:\n  uri: stdout\n" +
                              more_lines,
                          ".yaml");
}

TEST(ControlOptions, TheJobFilesThrottleFieldsAndProgressIntervalReachTheSpec) {
    const test::TempFile file = job_file("throttle:\n  stop_file: /tmp/x.stop\n  query: SELECT 0\n"
                       "  http_check: http://freno:9777/check/rowpump\nprogress_interval: 2.5\n");
    const JobSpec spec = load_job(file.path());
    EXPECT_EQ(spec.throttle.stop_file, "/tmp/x.stop");
    EXPECT_EQ(spec.throttle.throttle_query, "SELECT 0");
    EXPECT_EQ(spec.throttle.throttle_http, "http://freno:9777/check/rowpump");
    EXPECT_TRUE(spec.throttle.any()) << "a stop file alone starts the gate's watcher";
    EXPECT_EQ(spec.progress_interval_seconds, 2.5);
    EXPECT_EQ(load_job(job_file("").path()).progress_interval_seconds, 10) << "the default";
    EXPECT_EQ(load_job(job_file("progress_interval: 0\n").path()).progress_interval_seconds, 0) << "0: no lines";
    for (const char* bad : {"progress_interval: -1\n", "progress_interval: 0.5\n", "progress_interval: soon\n"}) {
        SCOPED_TRACE(bad);
        try {
            load_job(job_file(bad).path());
            ADD_FAILURE() << "accepted";
        } catch (const ConfigError& error) {
            EXPECT_NE(std::string(error.what()).find("progress_interval"), std::string::npos) << error.what();
        }
    }
}

TEST(ControlOptions, APageSizeSetOverHttpOverridesTheAdaptiveSizeUntilCleared) {
    ReadSpec read;
    read.page_size = 1000;
    read.min_page_size = 100;
    read.max_page_size = 5000;
    read.target_page_time = 200ms;
    std::atomic<std::size_t> set{0};
    read.page_size_override = &set;
    PageSizer sizer(read);
    EXPECT_EQ(sizer.size(), 1000u);
    set = 250;
    EXPECT_EQ(sizer.size(), 250u);
    sizer.observe(250, 10ms);  // fast pages would double an adaptive size: not while it is set
    EXPECT_EQ(sizer.size(), 250u);
    set = 0;
    EXPECT_EQ(sizer.size(), 1000u) << "cleared: the adaptive size again";
}

TEST(ControlOptions, AThrottleUrlIsPlainHttpWithAHostAndAPort) {
    const http::StatusUrl url = http::parse_status_url("http://freno.internal:9777/check/rowpump/mysql/main?x=1",
                                                       "--throttle-http");
    EXPECT_EQ(url.host, "freno.internal");
    EXPECT_EQ(url.port, 9777);
    EXPECT_EQ(url.target, "/check/rowpump/mysql/main?x=1");
    EXPECT_EQ(http::parse_status_url("http://[::1]", "--throttle-http").host, "::1");
    EXPECT_EQ(http::parse_status_url("http://h", "--throttle-http").target, "/");
    for (const char* bad : {"https://freno/check", "freno:9777/check", "http://", "http://h:0/", "http://h:99999/",
                            "http://user:pw@h/", "http://h/a b"}) {
        SCOPED_TRACE(bad);
        try {
            http::parse_status_url(bad, "--throttle-http");
            ADD_FAILURE() << "accepted";
        } catch (const UsageError& error) {
            EXPECT_EQ(std::string(error.what()).rfind("--throttle-http '", 0), 0u) << error.what();
        }
    }
}

TEST(ControlOptions, TheStatusCheckReadsTheCodeAndSaysWhyThereIsNone) {
    std::atomic<int> code{503};
    http::Server server("127.0.0.1:0", [&](const http::Request&) { return http::Response{code.load(), "text/plain", "x\n"}; },
                        "test throttler");
    const auto url = http::parse_status_url("http://127.0.0.1:" + std::to_string(server.port()) + "/check",
                                            "--throttle-http");
    EXPECT_EQ(http::check_status(url, 1000ms).status, 503);
    code = 200;
    EXPECT_EQ(http::check_status(url, 1000ms).status, 200);

    // A port nobody listens on: the one a server had, once it is gone.
    int gone_port = 0;
    {
        http::Server gone("127.0.0.1:0", [](const http::Request&) { return http::Response{}; }, "gone");
        gone_port = gone.port();
    }
    const http::StatusAnswer refused = http::check_status(
        http::parse_status_url("http://127.0.0.1:" + std::to_string(gone_port) + "/", "--throttle-http"), 1000ms);
    EXPECT_EQ(refused.status, 0);
    EXPECT_NE(refused.problem.find("refused"), std::string::npos) << refused.problem;
}

}  // namespace
}  // namespace rowpump
