// The run's HTTP endpoint against a real backfill (docs/throttling.md): POST /pause holds all but the
// page each worker is writing, POST /rate changes the measured rate and reaches the page that waits now,
// /metrics passes promtool, slow clients neither block the endpoint nor keep a finished run alive, and
// a bad --http address is one line and exit 2 before anything is written. Requests are sent as
// `curl -X POST URL` sends them: no body, no Content-Length.
#include <atomic>
#include <unistd.h>

#include "http/listen_socket.hpp"
#include "integration/throttle_fixture.hpp"
#include "unit/raw_http_client.hpp"

namespace rowpump::test {
namespace {

// After POST /pause returns, at most the page each worker is writing lands. The pages already read
// (in the queue between a worker's reader and its writer, or waiting for the rate's slot) are held.
TEST_F(ThrottleTest, PostPauseHoldsAllButThePageEachWorkerIsWriting) {
    constexpr int rows = 60000;
    constexpr int page = 1000;
    constexpr int workers = 2;
    CliProcess run(numbered_backfill(rows, page, {"--max-page-size", std::to_string(page), "--rate", "20000"}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_for_status(port, 10s, [](const Status& s) { return s.rows_written >= 10000; });
    const std::uint64_t before = status(port).rows_written;
    ASSERT_EQ(http_request(port, "POST", "/pause").status, 200);
    // Paused, no page being written, and the pages read before the pause waiting at the gate (they come
    // there from the rate's wait): nothing lands until /resume.
    const Status held = wait_for_status(port, 10s, [](const Status& s) {
        return s.state == "paused" && s.pages_writing == 0 && s.pages_waiting_for_rate == 0 && s.pages_held >= 1;
    });
    ASSERT_EQ(held.state, "paused");
    ASSERT_EQ(held.pages_writing, 0);
    ASSERT_EQ(held.pages_waiting_for_rate, 0);
    EXPECT_GE(before, 10000u) << "the run was under way";
    EXPECT_LE(held.rows_written, before + page * workers)
        << "at most one page per worker after the pause: " << before << " rows before it, " << held.rows_written
        << " after";
    EXPECT_GE(held.pages_held, 1) << "pages read before the pause wait at the gate instead of landing";
    EXPECT_EQ(file_rows(output_).rows, held.rows_written) << "what /status counts is what is in the file";
    EXPECT_LT(held.rows_written, static_cast<std::uint64_t>(rows));
    ASSERT_EQ(http_request(port, "POST", "/resume").status, 200);
    expect_finished_with_every_row(run, rows);
}

TEST_F(ThrottleTest, PostRateChangesTheMeasuredRate) {
    constexpr int rows = 20000;
    CliProcess run(rate_capped_backfill(rows));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    // The rate over a window of time: the time is the measurement here.
    const auto rate_over = [&](std::chrono::milliseconds window) {
        const auto start_rows = status(port).rows_written;
        const auto start = ThrottleClock::now();
        std::this_thread::sleep_for(window);
        const auto end_rows = status(port).rows_written;
        return static_cast<double>(end_rows - start_rows) /
               std::chrono::duration<double>(ThrottleClock::now() - start).count();
    };
    wait_for_status(port, 5s, [](const Status& s) { return s.rows_written > 0; });
    const double slow = rate_over(2s);
    ASSERT_EQ(http_request(port, "POST", "/rate?value=4000").status, 200);
    const double fast = rate_over(2s);
    EXPECT_NEAR(slow, 1000, 300) << "the cap given at the start";
    EXPECT_GT(fast, 2.5 * slow) << "slow " << slow << " rows/s, then " << fast << " rows/s";
    for (const char* refused : {"abc", "1e-300", "0x10", "%20%205", "-0", "1&value=2"})
        EXPECT_EQ(http_request(port, "POST", std::string("/rate?value=") + refused).status, 400) << refused;
    ASSERT_EQ(http_request(port, "POST", "/rate?value=0").status, 200);
    expect_finished_with_every_row(run, rows);
}

// At 1 row/s a page of 100 waits 100 s for its slot; "no cap" must free that very page.
TEST_F(ThrottleTest, NoCapFreesThePageWaitingAtTheSlowestRate) {
    constexpr int rows = 3000;
    CliProcess run(rate_capped_backfill(rows));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_for_status(port, 5s, [](const Status& s) { return s.rows_written > 0; });
    ASSERT_EQ(http_request(port, "POST", "/rate?value=1").status, 200);
    const Status slowed = wait_for_status(port, 5s, [](const Status& s) { return s.pages_waiting_for_rate >= 1; });
    ASSERT_GE(slowed.pages_waiting_for_rate, 1) << "a page waits for its turn at 1 row/s";
    EXPECT_LT(slowed.rows_written, static_cast<std::uint64_t>(rows)) << "the run was still under way";
    ASSERT_EQ(http_request(port, "POST", "/rate?value=0").status, 200);
    const auto ended = run.wait_for(10s);
    EXPECT_TRUE(ended) << "the page waiting at 1 row/s should go at once with no cap\n" << run.describe();
    if (!ended) run.kill();
    else EXPECT_EQ(*ended, 0) << run.describe();
    expect_every_row_once(rows);
}

TEST_F(ThrottleTest, MetricsPassPromtoolCheckMetrics) {
    const auto held = held_backfill(numbered_table(1000));
    ASSERT_TRUE(held);
    CliProcess& run = *held;
    const int port = endpoint_port(run);
    const HttpAnswer metrics = http_request(port, "GET", "/metrics");
    ASSERT_EQ(metrics.status, 200);
    for (const char* family : {"rowpump_rows_read_total", "rowpump_rows_written_total", "rowpump_pages_read_total",
                               "rowpump_retries_total", "rowpump_throttled_seconds_total{reason=\"pause_file\"}",
                               "rowpump_state{state=\"paused\"} 1", "rowpump_ranges{state=\"pending\"} 2"})
        EXPECT_TRUE(contains(metrics.body, family)) << family << " in\n" << metrics.body;
    const std::string page = temp_file("metrics");
    std::ofstream(page) << metrics.body;
    const std::string report = temp_file("promtool");
    const int checked = std::system(("promtool check metrics < " + page + " > " + report + " 2>&1").c_str());
    EXPECT_EQ(checked, 0) << slurp(report) << "\n" << metrics.body;
    std::remove(page.c_str());
    std::remove(report.c_str());
    std::filesystem::remove(pause_file_);
    EXPECT_EQ(finish(run), 0) << run.describe();
}

TEST_F(ThrottleTest, SlowClientsNeitherBlockTheEndpointNorKeepAFinishedRunAlive) {
    constexpr int rows = 5000;
    CliProcess run(paused_backfill(rows));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_until_held(port, "paused", 2);
    SlowClient first(port);
    SlowClient second(port);
    ASSERT_TRUE(wait_until([&] { return first.inside_its_request() && second.inside_its_request(); }, 3000ms));
    for (const auto& [method, target] : {std::pair{"GET", "/metrics"}, {"POST", "/pause"}, {"POST", "/resume"}}) {
        const auto start = ThrottleClock::now();
        EXPECT_EQ(http_request(port, method, target).status, 200) << method << " " << target;
        EXPECT_LT(ThrottleClock::now() - start, 1s) << method << " " << target << " beside two slow clients";
    }
    const auto released = ThrottleClock::now();
    std::filesystem::remove(pause_file_);
    // 5000 rows take a fraction of a second; the slow clients are still connected, and stay so.
    const auto ended = run.wait_for(10s);
    ASSERT_TRUE(ended) << run.describe();
    EXPECT_EQ(*ended, 0) << run.describe();
    EXPECT_LT(ThrottleClock::now() - released, 3s) << "the run ends with its last page, whoever is connected";
    expect_every_row_once(rows);
}

TEST_F(ThrottleTest, BackfillHttpAddressThatCannotBeBoundIsOneLineAndExit2BeforeAnythingIsWritten) {
    const auto table = numbered_table(10);
    const http::ListenSocket taken = http::listen_on("127.0.0.1", 0, "127.0.0.1:0", config::OptionId::http);
    const std::string never_written = output_ + ".absent";
    for (const auto& [address, needle] :
         std::vector<std::pair<std::string, std::string>>{{"127.0.0.1:99999", "at most 65535"},
                                                          {"127.0.0.1:", "the port must be a number"},
                                                          {"127.0.0.1:" + std::to_string(taken.port), "is taken"},
                                                          {"no-such-host.invalid:8080", "cannot resolve the host"}}) {
        std::vector<std::string> args = file_backfill(table, 100, {});
        for (std::size_t i = 0; i + 1 < args.size(); ++i) {
            if (args[i] == "--sink") args[i + 1] = "file:" + never_written;
            if (args[i] == "--http") args[i + 1] = address;
        }
        CliProcess run(args);
        EXPECT_EQ(finish(run, 20s), 2) << address << "\n" << run.describe();
        const auto err = lines(run.err());
        ASSERT_EQ(err.size(), 1u) << "one clear line for " << address << "\n" << run.describe();
        EXPECT_TRUE(contains(err[0], "--http " + address)) << err[0];
        EXPECT_TRUE(contains(err[0], needle)) << err[0];
        EXPECT_FALSE(std::filesystem::exists(never_written)) << "nothing written for " << address;
    }
    ::close(taken.fd);
}

}  // namespace
}  // namespace rowpump::test
