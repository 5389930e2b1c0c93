// `rowpump queue consume --http`: /metrics counts the tasks by outcome, those in flight and their
// durations, and passes `promtool check metrics`. `rowpump queue stats --format prometheus` prints the
// depths under the names of Sidekiq's and Celery's exporters, and passes it too.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/http_client.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

class ConsumerMetricsTest : public MySqlRedisTest {};

TEST_F(ConsumerMetricsTest, MetricsCountTasksByOutcomeAndPassPromtool) {
    for (const char* payload : {"ok-1", "bad", "ok-2"}) redis_->command({"RPUSH", queue_, payload});
    CliProcess consumer({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                         "p=$(cat); test \"$p\" != bad", "--max-attempts", "1", "--http", "127.0.0.1:0"});
    const std::string marker = "POST /requeue-dead on http://127.0.0.1:";
    int port = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; !port && std::chrono::steady_clock::now() < deadline;) {
        const std::string err = consumer.err();
        if (const auto at = err.find(marker); at != std::string::npos) port = std::atoi(err.c_str() + at + marker.size());
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_GT(port, 0) << consumer.describe();
    const std::string labels = "{queue=\"" + queue_ + "\"}";
    const std::vector<std::string> samples{
        "rowpump_consumer_tasks_processed_total" + labels + " 2", "rowpump_consumer_tasks_failed_total" + labels + " 1",
        "rowpump_consumer_tasks_dead_total" + labels + " 1", "rowpump_consumer_tasks_retried_total" + labels + " 0",
        "rowpump_consumer_tasks_in_flight" + labels + " 0",
        "rowpump_consumer_task_duration_seconds_bucket{queue=\"" + queue_ + "\",le=\"+Inf\"} 3",
        "rowpump_consumer_task_duration_seconds_count" + labels + " 3"};
    const auto has_every_sample = [&](const std::string& body) {
        return std::ranges::all_of(samples, [&](const std::string& sample) { return contains(body, sample); });
    };
    // A task's duration is counted as its command returns, its outcome a moment later: the page is read
    // until the third outcome is on it too.
    HttpAnswer metrics;
    for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
        metrics = http_request(port, "GET", "/metrics");
        if (has_every_sample(metrics.body)) break;
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(metrics.status, 200) << consumer.describe();
    for (const std::string& sample : samples)
        EXPECT_TRUE(contains(metrics.body, sample)) << sample << " in\n" << metrics.body;
    const std::string page = temp_file("consumer_metrics");
    std::ofstream(page) << metrics.body;
    const std::string report = temp_file("consumer_promtool");
    EXPECT_EQ(std::system(("promtool check metrics < " + page + " > " + report + " 2>&1").c_str()), 0)
        << slurp(report) << "\n" << metrics.body;
    std::remove(page.c_str());
    std::remove(report.c_str());
    EXPECT_EQ(http_request(port, "GET", "/nothing").status, 404);
    consumer.signal(SIGTERM);
    EXPECT_EQ(consumer.wait_for(20s), std::optional<int>(0)) << consumer.describe();
}

void expect_promtool_accepts(const std::string& text) {
    const std::string page = temp_file("stats_page");
    std::ofstream(page) << text;
    const std::string report = temp_file("stats_promtool");
    EXPECT_EQ(std::system(("promtool check metrics < " + page + " > " + report + " 2>&1").c_str()), 0)
        << slurp(report) << "\n" << text;
    std::remove(page.c_str());
    std::remove(report.c_str());
}

TEST_F(ConsumerMetricsTest, StatsInPrometheusFormatUseTheExportersNamesAndPassPromtool) {
    for (const char* payload : {"a", "b", "c"}) redis_->command({"RPUSH", queue_, payload});
    redis_->command({"ZADD", queue_ + ":delayed", "99999999999999", "later"});
    redis_->command({"RPUSH", queue_ + ":dead", "gone"});
    const auto run = run_rowpump({"queue", "stats", "--source", redis_url_, "--queue", queue_, "--format", "prometheus"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const std::string name = "{name=\"" + queue_ + "\"}";
    for (const std::string& sample :
         {"sidekiq_queue_enqueued_jobs" + name + " 3", "sidekiq_scheduled_jobs" + name + " 1",
          "sidekiq_dead_jobs" + name + " 1", "celery_queue_length{queue_name=\"" + queue_ + "\"} 3",
          "rowpump_queue_tasks{queue=\"" + queue_ + "\",state=\"ready\"} 3",
          "rowpump_queue_tasks{queue=\"" + queue_ + "\",state=\"in_flight\"} 0",
          "rowpump_queue_tasks{queue=\"" + queue_ + "\",state=\"delayed\"} 1",
          std::string("# TYPE sidekiq_queue_latency_seconds gauge")})
        EXPECT_TRUE(contains(run.out, sample)) << sample << " in\n" << run.out;
    expect_promtool_accepts(run.out);
    const auto bad = run_rowpump({"queue", "stats", "--source", redis_url_, "--queue", queue_, "--format", "yaml"});
    EXPECT_EQ(bad.exit_code, 2) << bad.describe();
}

TEST_F(ConsumerMetricsTest, MySqlQueueStatsInPrometheusFormatPassPromtool) {
    const std::string name = "rp_test_stats_prom_q_" + std::to_string(::getpid());
    const std::string ddl = mysql::queue_table_ddl(name);
    const std::string table = tables().create("stats_prom_q", ddl.substr(ddl.find('(')));
    tables().execute(table, "INSERT INTO {t} (payload, available_at) VALUES ('t1', NOW(6)), ('t2', NOW(6))");
    const auto run = run_rowpump({"queue", "stats", "--source", mysql_url_for_command_line(), "--queue", table,
                                  "--format", "prometheus"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    for (const std::string& sample :
         {"rowpump_queue_tasks{queue=\"" + table + "\",state=\"done\"} 0",
          "rowpump_queue_tasks{queue=\"" + table + "\",state=\"ready\"} 2",
          "sidekiq_queue_enqueued_jobs{name=\"" + table + "\"} 2"})
        EXPECT_TRUE(contains(run.out, sample)) << sample << " in\n" << run.out;
    expect_promtool_accepts(run.out);
}

}  // namespace
}  // namespace rowpump::test
