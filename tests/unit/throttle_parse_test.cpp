// The throttle's parsers and its metrics page, without a server: load limits, HTTP addresses, the
// Prometheus text format, and the YAML throttle section.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "http/http_server.hpp"
#include "metrics/histogram.hpp"
#include "metrics/prometheus_text.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "rowpump/throttle.hpp"

namespace rowpump {
namespace {

TEST(LoadLimits, ParsesOneOrSeveral) {
    const auto limits = parse_load_limits("Threads_running=25,Threads_connected=400.5", "--max-load");
    ASSERT_EQ(limits.size(), 2u);
    EXPECT_EQ(limits[0].variable, "Threads_running");
    EXPECT_EQ(limits[0].limit, 25);
    EXPECT_EQ(limits[1].variable, "Threads_connected");
    EXPECT_EQ(limits[1].limit, 400.5);
}

TEST(LoadLimits, RefusesWhatIsNotVarEqualsNumber) {
    for (const char* bad : {"", "Threads_running", "Threads_running=", "=5", "Threads_running=x", "Threads_running=-1",
                            "Threads'running=5", "Threads_running=5,", "1abc=3"}) {
        try {
            parse_load_limits(bad, "--max-load");
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const UsageError& error) {
            EXPECT_NE(std::string(error.what()).find("--max-load"), std::string::npos) << error.what();
            EXPECT_NE(std::string(error.what()).find("VAR=N"), std::string::npos) << error.what();
        }
    }
}

TEST(HttpAddress, PortAloneIsLoopback) {
    EXPECT_EQ(http::parse_address("8080", config::OptionId::http), std::make_pair(std::string("127.0.0.1"), 8080));
    EXPECT_EQ(http::parse_address(":8080", config::OptionId::http), std::make_pair(std::string("127.0.0.1"), 8080));
    EXPECT_EQ(http::parse_address("0.0.0.0:9", config::OptionId::http), std::make_pair(std::string("0.0.0.0"), 9));
    EXPECT_EQ(http::parse_address("[::1]:80", config::OptionId::http), std::make_pair(std::string("::1"), 80));
    for (const char* bad : {"host:", "host:http", "1.2.3.4:70000", "[::1:80", "host:123456"})
        EXPECT_THROW(http::parse_address(bad, config::OptionId::http), UsageError) << bad;
}

TEST(PrometheusText, WritesFamiliesAndEscapesLabelValues) {
    metrics::PrometheusText page;
    page.family("rowpump_x_total", "counter", "A help\nline with \\ in it.");
    page.sample("rowpump_x_total", 3, {{"replica", "a\"b\\c\nd"}});
    page.sample("rowpump_x_total", 0.5);
    EXPECT_EQ(page.text(),
              "# HELP rowpump_x_total A help\\nline with \\\\ in it.\n"
              "# TYPE rowpump_x_total counter\n"
              "rowpump_x_total{replica=\"a\\\"b\\\\c\\nd\"} 3\n"
              "rowpump_x_total 0.5\n");
}

TEST(Histogram, BucketsAreCumulativeWithSumAndCount) {
    metrics::Histogram histogram({0.1, 1});
    for (const double seconds : {0.05, 0.1, 0.5, 3.0}) histogram.observe(seconds);
    metrics::PrometheusText page;
    histogram.write(page, "rp_seconds", "Durations.", {{"queue", "q"}});
    EXPECT_EQ(page.text(),
              "# HELP rp_seconds Durations.\n# TYPE rp_seconds histogram\n"
              "rp_seconds_bucket{queue=\"q\",le=\"0.1\"} 2\n"
              "rp_seconds_bucket{queue=\"q\",le=\"1\"} 3\n"
              "rp_seconds_bucket{queue=\"q\",le=\"+Inf\"} 4\n"
              "rp_seconds_sum{queue=\"q\"} 3.6499999999999999\n"
              "rp_seconds_count{queue=\"q\"} 4\n");
}

class TempJobFile {
public:
    explicit TempJobFile(const std::string& text)
        : path_((std::filesystem::temp_directory_path() / ("rp_throttle_yaml_" + std::to_string(::getpid()) + ".yaml"))
                    .string()) {
        std::ofstream(path_) << text;
    }
    ~TempJobFile() { std::filesystem::remove(path_); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

constexpr const char* job_head =
    "source: {mysql: 'mysql://u:p@127.0.0.1:3306/db', table: t}\n"
    "sink: {uri: stdout}\n";

TEST(ThrottleYaml, ReadsTheThrottleSection) {
    const TempJobFile file(std::string(job_head) +
                           "throttle:\n"
                           "  replicas: ['mysql://u@10.0.0.2:3307/db', 'mysql://u@10.0.0.3/db']\n"
                           "  max_lag: 2.5\n"
                           "  max_load: Threads_running=25\n"
                           "  critical_load: Threads_running=200\n"
                           "  pause_file: /tmp/pause-me\n"
                           "  http: 127.0.0.1:8080\n");
    const JobSpec spec = load_job(file.path());
    ASSERT_EQ(spec.throttle.replicas.size(), 2u);
    EXPECT_EQ(spec.throttle.replicas[0].port, 3307u);
    EXPECT_EQ(spec.throttle.replicas[1].host, "10.0.0.3");
    EXPECT_EQ(spec.throttle.max_lag, std::chrono::milliseconds(2500));
    ASSERT_EQ(spec.throttle.max_load.size(), 1u);
    EXPECT_EQ(spec.throttle.max_load[0].limit, 25);
    ASSERT_EQ(spec.throttle.critical_load.size(), 1u);
    EXPECT_EQ(spec.throttle.pause_file, "/tmp/pause-me");
    EXPECT_EQ(spec.throttle.http, "127.0.0.1:8080");
}

TEST(ThrottleYaml, ABadLimitIsAConfigErrorAtItsLine) {
    const TempJobFile file(std::string(job_head) + "throttle:\n  max_load: Threads_running\n");
    try {
        load_job(file.path());
        FAIL() << "accepted a limit without a value";
    } catch (const ConfigError& error) {
        EXPECT_NE(std::string(error.what()).find(":4:"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("VAR=N"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace rowpump
