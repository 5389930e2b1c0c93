// The controls of a running backfill besides pause, resume, rate and max-lag (docs/throttling.md), each
// through the command line, the HTTP endpoint and /status and /metrics:
//  - POST /stop, sent as a user types it (`curl -X POST http://127.0.0.1:PORT/stop`, no body): exit 3,
//    and with a job id the same command resumes and every row is in the queue once;
//  - --stop-file: the run stops once the file appears;
//  - POST /page-size?value=N: the pages after it have N rows; bad values are a 400 with a clear body;
//  - POST /max-load?value=VAR=N: a limit set live holds reading, an empty one lets it go;
//  - --throttle-query and --throttle-http: reading waits while the query says so, or while the throttler
//    does not answer 200;
//  - --progress-interval: a line every interval; a bad value is one line and exit 2.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "http/http_server.hpp"
#include "integration/curl_command.hpp"
#include "integration/queue_contents.hpp"
#include "integration/throttle_fixture.hpp"

namespace rowpump::test {
namespace {

// One value of /status, as JSON text ("500", "\"Threads_running=0\"").
std::string status_member(int port, const char* name) {
    const HttpAnswer answer = http_request(port, "GET", "/status");
    rapidjson::Document json;
    json.Parse(answer.body.c_str());
    if (json.HasParseError() || !json.HasMember(name)) return "<missing>";
    const auto& value = json[name];
    if (value.IsString()) return std::string("\"") + value.GetString() + "\"";
    if (value.IsUint64()) return std::to_string(value.GetUint64());
    return value.IsNull() ? "null" : "<other>";
}

// The value of a sample line of /metrics that starts with `sample` ("rowpump_page_size_rows").
double metric(int port, const std::string& sample) {
    const std::string body = http_request(port, "GET", "/metrics").body;
    for (const std::string& line : lines(body))
        if (line.rfind(sample + " ", 0) == 0) return std::atof(line.c_str() + sample.size() + 1);
    ADD_FAILURE() << "no " << sample << " in /metrics:\n" << body;
    return -1;
}

class ControlSurfaceTest : public ThrottleTest {
protected:
    // A backfill of a numbered table into a MySQL queue table with a job id, 2 workers, pages of 100 rows at
    // 2000 rows/s, an endpoint on a free port.
    std::vector<std::string> job_backfill(const std::string& table, std::vector<std::string> more = {}) {
        queue_ = "rp_test_ctl_q_" + std::to_string(::getpid());
        job_id_ = "rp_test_ctl_" + std::to_string(::getpid());
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_, "--table", table, "--sink", mysql_url_,
                                      "--queue", queue_, "--job-id", job_id_, "--workers", "2", "--partitions", "2",
                                      "--page-size", "100", "--page-time-ms", "0", "--rate", "2000",
                                      "--http", "127.0.0.1:0"};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }

    // Exit 2 and one line on stderr that contains `words`.
    static void expect_refused(const CliRun& run, const std::string& words) {
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        EXPECT_EQ(lines(run.err).size(), 1u) << run.err;
        EXPECT_NE(run.err.find(words), std::string::npos) << run.err;
    }
};

TEST_F(ControlSurfaceTest, PostStopExitsThreeAndTheSameCommandResumesExactlyOnce) {
    constexpr int rows = 8000;
    const std::string table = numbered_table(rows);
    CliProcess run(job_backfill(table));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    wait_for_status(port, 10s, [](const Status& s) { return s.rows_written >= 1000; });
    const CurlAnswer stop = curl_post(port, "/stop");
    EXPECT_EQ(stop.status, 200) << stop.body;
    EXPECT_NE(stop.body.find("stopping"), std::string::npos) << stop.body;
    EXPECT_EQ(finish(run), 3) << run.describe();
    EXPECT_NE(run.err().find("stop requested over HTTP (POST /stop)"), std::string::npos) << run.err();
    const auto written = queue_payloads(tables().connection(), queue_).size();
    EXPECT_GE(written, 1000u);
    EXPECT_LT(written, static_cast<std::size_t>(rows)) << "stopped before the end";

    const CliRun resumed = run_rowpump(job_backfill(table));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
    const auto ids = payload_keys(queue_payloads(tables().connection(), queue_), {"id"});
    std::vector<std::string> expected;
    for (int id = 1; id <= rows; ++id) expected.push_back(std::to_string(id));
    EXPECT_EQ(multiset_difference(ids, expected), "") << "every row once after the resume";
}

TEST_F(ControlSurfaceTest, AStopFileStopsTheRunOnceItAppears) {
    const std::string stop_file = pause_file_ + "_stop";
    std::filesystem::remove(stop_file);
    CliProcess run(numbered_backfill(20000, 100, {"--rate", "2000", "--stop-file", stop_file}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    EXPECT_EQ(status_member(port, "stop_file"), "\"" + stop_file + "\"");
    EXPECT_EQ(metric(port, "rowpump_throttle_checks{check=\"stop_file\"}"), 1);
    wait_for_status(port, 10s, [](const Status& s) { return s.rows_written >= 500; });
    std::ofstream(stop_file) << "";
    EXPECT_EQ(finish(run), 3) << run.describe();
    EXPECT_NE(run.err().find("stop file " + stop_file + " exists"), std::string::npos) << run.err();
    EXPECT_LT(file_rows(output_).rows, 20000u);
    std::filesystem::remove(stop_file);
}

TEST_F(ControlSurfaceTest, PostPageSizeChangesThePagesAndRefusesBadValues) {
    CliProcess run(rate_capped_backfill(30000));  // pages of 100 rows at 1000 rows/s
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    for (const char* bad : {"/page-size", "/page-size?value=0", "/page-size?value=abc", "/page-size?value=2.5",
                            "/page-size?value=1&value=2"}) {
        const CurlAnswer refused = curl_post(port, bad);
        EXPECT_EQ(refused.status, 400) << bad;
        EXPECT_NE(refused.body.find("/page-size needs"), std::string::npos) << bad << ": " << refused.body;
        EXPECT_EQ(std::count(refused.body.begin(), refused.body.end(), '\n'), 1) << refused.body;
    }
    const CurlAnswer set = curl_post(port, "/page-size?value=250");
    ASSERT_EQ(set.status, 200) << set.body;
    EXPECT_EQ(status_member(port, "page_size"), "250");
    EXPECT_EQ(metric(port, "rowpump_page_size_rows"), 250);
    // The pages read from here on: their rows over their count.
    const double rows_before = metric(port, "rowpump_rows_read_total");
    const double pages_before = metric(port, "rowpump_pages_read_total");
    double rows_after = rows_before, pages_after = pages_before;
    ASSERT_TRUE(wait_until([&] {
        rows_after = metric(port, "rowpump_rows_read_total");
        pages_after = metric(port, "rowpump_pages_read_total");
        return pages_after - pages_before >= 6;
    }, 20s));
    // At most one page per worker was already being read at 100 rows when the size changed.
    EXPECT_GE(rows_after - rows_before, 250 * (pages_after - pages_before - 2) + 200);
    ASSERT_EQ(http_request(port, "POST", "/rate?value=0").status, 200);
    EXPECT_EQ(finish(run), 0) << run.describe();
    expect_every_row_once(30000);
}

TEST_F(ControlSurfaceTest, PostMaxLoadHoldsReadingUntilTheLimitIsLifted) {
    CliProcess run(rate_capped_backfill(20000));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const CurlAnswer unknown = curl_post(port, "/max-load?value=No_such_status=5");
    EXPECT_EQ(unknown.status, 400);
    EXPECT_NE(unknown.body.find("no global status variable 'No_such_status'"), std::string::npos) << unknown.body;
    const CurlAnswer malformed = curl_post(port, "/max-load?value=Threads_running");
    EXPECT_EQ(malformed.status, 400);
    EXPECT_NE(malformed.body.find("no '='"), std::string::npos) << malformed.body;
    EXPECT_EQ(curl_post(port, "/max-load").status, 400);

    // Threads_running counts the probe's own statement: always at least 1, so a limit of 0 holds reading.
    const CurlAnswer set = curl_post(port, "/max-load?value=Threads_running=0");
    ASSERT_EQ(set.status, 200) << set.body;
    // Held mid-run: the pages already past the gate land, then nothing is being written.
    const Status held = wait_for_status(port, 10s, [](const Status& s) {
        return s.state == "throttled" && s.pages_writing == 0 && s.pages_waiting_for_rate == 0;
    });
    ASSERT_EQ(held.state, "throttled") << held.reason;
    EXPECT_EQ(held.pages_writing, 0);
    EXPECT_NE(held.reason.find("load Threads_running"), std::string::npos) << held.reason;
    EXPECT_EQ(status(port).rows_written, held.rows_written) << "nothing lands while it is held";
    EXPECT_EQ(status_member(port, "max_load"), "\"Threads_running=0\"");
    EXPECT_EQ(metric(port, "rowpump_max_load{variable=\"Threads_running\"}"), 0);
    EXPECT_EQ(metric(port, "rowpump_state{state=\"throttled\"}"), 1);

    ASSERT_EQ(curl_post(port, "/max-load?value=").status, 200);
    wait_for_status(port, 10s, [](const Status& s) { return s.state == "running"; });
    EXPECT_EQ(status_member(port, "max_load"), "\"\"");
    ASSERT_EQ(http_request(port, "POST", "/rate?value=0").status, 200);
    expect_finished_with_every_row(run, 20000);
}

TEST_F(ControlSurfaceTest, AThrottleQueryHoldsReadingWhileItsFirstCellIsNotZero) {
    const std::string flag = tables().create("ctl_flag", "(hold INT NOT NULL)");
    tables().execute(flag, "INSERT INTO {t} VALUES (1)");
    CliProcess run(numbered_backfill(5000, 500, {"--throttle-query", "SELECT hold FROM " + flag}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_until_held(port, "throttled", 2);
    EXPECT_EQ(held.reason, "throttle query returned 1");
    EXPECT_EQ(held.rows_written, 0u);
    EXPECT_EQ(metric(port, "rowpump_throttle_checks{check=\"throttle_query\"}"), 1);
    tables().execute(flag, "UPDATE {t} SET hold = 0");
    expect_finished_with_every_row(run, 5000);

    expect_refused(run_rowpump(numbered_backfill(10, 10, {"--throttle-query", "SELECT FROM nowhere"})),
                   "--throttle-query fails on the source server");
}

TEST_F(ControlSurfaceTest, AThrottlerOverHttpHoldsReadingUntilItAnswers200) {
    std::atomic<int> answer{503};
    std::atomic<int> asked{0};
    http::Server throttler("127.0.0.1:0", [&](const http::Request& request) {
        ++asked;
        return http::Response{answer.load(), "text/plain", request.path + "\n"};
    }, "test throttler");
    const std::string url = "http://127.0.0.1:" + std::to_string(throttler.port()) + "/check/rowpump";
    CliProcess run(numbered_backfill(5000, 500, {"--throttle-http", url}));
    const int port = endpoint_port(run);
    ASSERT_GT(port, 0);
    const Status held = wait_until_held(port, "throttled", 2);
    EXPECT_EQ(held.reason, "throttler " + url + " answered 503");
    EXPECT_EQ(status_member(port, "throttle_http"), "\"" + url + "\"");
    answer = 200;
    expect_finished_with_every_row(run, 5000);
    EXPECT_GE(asked.load(), 2);

    expect_refused(run_rowpump(numbered_backfill(10, 10, {"--throttle-http", "https://freno:9777/check"})),
                   "https is not supported");
}

TEST_F(ControlSurfaceTest, ProgressLinesComeEveryIntervalAndABadIntervalIsRefused) {
    const auto progress_lines = [](const std::string& err) {
        std::size_t count = 0;
        for (const std::string& line : lines(err)) count += line.rfind("rowpump: progress:", 0) == 0;
        return count;
    };
    // About 3 s of copying each: a line a second, none by default (every 10 s), none with 0.
    const CliRun often = run_rowpump(numbered_backfill(6000, 100, {"--rate", "2000", "--progress-interval", "1"}));
    ASSERT_EQ(often.exit_code, 0) << often.describe();
    EXPECT_GE(progress_lines(often.err), 2u) << often.err;
    const CliRun usual = run_rowpump(numbered_backfill(6000, 100, {"--rate", "2000"}));
    ASSERT_EQ(usual.exit_code, 0) << usual.describe();
    EXPECT_EQ(progress_lines(usual.err), 0u) << usual.err;
    const CliRun never = run_rowpump(numbered_backfill(6000, 100, {"--rate", "2000", "--progress-interval", "0"}));
    ASSERT_EQ(never.exit_code, 0) << never.describe();
    EXPECT_EQ(progress_lines(never.err), 0u) << never.err;
    const CliRun bad = run_rowpump(numbered_backfill(10, 10, {"--progress-interval", "-1"}));
    EXPECT_EQ(bad.exit_code, 2) << bad.describe();
    EXPECT_NE(bad.err.find("--progress-interval"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace rowpump::test
