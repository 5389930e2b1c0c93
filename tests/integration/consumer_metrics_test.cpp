// `rowpump queue consume --http`: /metrics counts the tasks by outcome, those in flight and their
// durations, and passes `promtool check metrics`.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "integration/cli_process.hpp"
#include "integration/http_client.hpp"
#include "integration/mysql_redis_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

class ConsumerMetricsTest : public MySqlRedisTest {};

TEST_F(ConsumerMetricsTest, MetricsCountTasksByOutcomeAndPassPromtool) {
    for (const char* payload : {"ok-1", "bad", "ok-2"}) redis_->command({"RPUSH", queue_, payload});
    CliProcess consumer({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                         "p=$(cat); test \"$p\" != bad", "--max-attempts", "1", "--http", "127.0.0.1:0"});
    const std::string marker = "consumer metrics (/metrics) on http://127.0.0.1:";
    int port = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; !port && std::chrono::steady_clock::now() < deadline;) {
        const std::string err = consumer.err();
        if (const auto at = err.find(marker); at != std::string::npos) port = std::atoi(err.c_str() + at + marker.size());
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_GT(port, 0) << consumer.describe();
    const std::string labels = "{queue=\"" + queue_ + "\"}";
    HttpAnswer metrics;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
        metrics = http_request(port, "GET", "/metrics");
        if (contains(metrics.body, "rowpump_consumer_task_duration_seconds_count" + labels + " 3")) break;
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(metrics.status, 200) << consumer.describe();
    for (const std::string& sample :
         {"rowpump_consumer_tasks_processed_total" + labels + " 2", "rowpump_consumer_tasks_failed_total" + labels + " 1",
          "rowpump_consumer_tasks_dead_total" + labels + " 1", "rowpump_consumer_tasks_retried_total" + labels + " 0",
          "rowpump_consumer_tasks_in_flight" + labels + " 0",
          "rowpump_consumer_task_duration_seconds_bucket{queue=\"" + queue_ + "\",le=\"+Inf\"} 3",
          "rowpump_consumer_task_duration_seconds_count" + labels + " 3"})
        EXPECT_TRUE(contains(metrics.body, sample)) << sample << " in\n" << metrics.body;
    const std::string page = temp_file("consumer_metrics");
    std::ofstream(page) << metrics.body;
    const std::string report = temp_file("consumer_promtool");
    EXPECT_EQ(std::system(("promtool check metrics < " + page + " > " + report + " 2>&1").c_str()), 0)
        << slurp(report) << "\n" << metrics.body;
    std::remove(page.c_str());
    std::remove(report.c_str());
    EXPECT_EQ(http_request(port, "GET", "/status").status, 404);
    consumer.signal(SIGTERM);
    EXPECT_EQ(consumer.wait_for(20s), std::optional<int>(0)) << consumer.describe();
}

}  // namespace
}  // namespace rowpump::test
