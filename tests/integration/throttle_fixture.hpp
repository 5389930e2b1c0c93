#pragma once
// What the throttle's tests against real servers share (throttle_test.cpp, throttle_control_test.cpp):
// a backfill of a numbered table into a file, watched through its own --http endpoint; /status read and
// waited on; busy sessions that keep Threads_running up until released.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/http_client.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"

namespace rowpump::test {

using namespace std::chrono_literals;
using ThrottleClock = std::chrono::steady_clock;

inline constexpr const char* replica_hint =
    "ROWPUMP_REPLICA_URL is not set: this test needs the replica that scripts/services.sh starts beside the local "
    "MariaDB (its binary log must be on: restart the servers with scripts/services.sh stop, then start), and "
    "eval \"$(bash scripts/services.sh env)\"";

inline bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The port a run's endpoint listens on, from the line it logs (the tests ask for port 0: no collisions).
inline int endpoint_port(CliProcess& process) {
    const std::string marker = "/max-lag) on http://127.0.0.1:";
    const auto deadline = ThrottleClock::now() + 15s;
    while (ThrottleClock::now() < deadline && !process.poll()) {
        const std::string err = process.err();
        if (const auto at = err.find(marker); at != std::string::npos) return std::atoi(err.c_str() + at + marker.size());
        std::this_thread::sleep_for(20ms);
    }
    ADD_FAILURE() << "no endpoint came up\n" << process.describe();
    return 0;
}

struct Status {
    std::string state;
    std::string reason;
    std::uint64_t rows_written = 0;
    int workers_held = 0;  // workers waiting at the closed gate before their next read
    int pages_held = 0;  // pages read and waiting at the closed gate before they are written
    int pages_writing = 0;  // pages past the gate, being written
    int pages_waiting_for_rate = 0;  // pages waiting for their turn under --rate
    bool answered = false;
};

inline Status status(int port) {
    Status out;
    const HttpAnswer answer = http_request(port, "GET", "/status");
    if (answer.status != 200) return out;
    rapidjson::Document json;
    json.Parse(answer.body.c_str());
    if (json.HasParseError() || !json.IsObject() || !json.HasMember("state")) {
        ADD_FAILURE() << "/status is not the JSON expected: " << answer.body;
        return out;
    }
    out.answered = true;
    out.state = json["state"].GetString();
    out.reason = json["reason"].GetString();
    if (json.HasMember("rows_written")) out.rows_written = json["rows_written"].GetUint64();
    const auto count = [&](const char* name) { return json.HasMember(name) ? json[name].GetInt() : 0; };
    out.workers_held = count("workers_held");
    out.pages_held = count("pages_held");
    out.pages_writing = count("pages_writing");
    out.pages_waiting_for_rate = count("pages_waiting_for_rate");
    return out;
}

// Waits until `ready(status)` or `limit`; the last status either way.
template <class Ready>
inline Status wait_for_status(int port, std::chrono::milliseconds limit, Ready&& ready) {
    const auto deadline = ThrottleClock::now() + limit;
    Status last;
    do {
        last = status(port);
        if (last.answered && ready(last)) return last;
        std::this_thread::sleep_for(50ms);
    } while (ThrottleClock::now() < deadline);
    return last;
}

// Waits until the gate holds the whole copy: it is closed (`state`), every worker waits at it before its
// next read, and no page is being written. From then on no row lands until it opens: what a test reads
// then is final, without a sleep. A gate that never closed fails here.
inline Status wait_until_held(int port, const std::string& state, int workers) {
    const Status held = wait_for_status(port, 10000ms, [&](const Status& s) {
        return s.state == state && s.workers_held == workers && s.pages_writing == 0;
    });
    EXPECT_EQ(held.state, state) << held.reason;
    EXPECT_EQ(held.workers_held, workers) << "every worker waits at the gate";
    EXPECT_EQ(held.pages_writing, 0) << "no page is being written";
    return held;
}

// The ids in an NDJSON file of {"id":N,...} rows, and how many rows there were.
struct FileRows {
    std::size_t rows = 0;
    std::set<long> ids;
};

inline FileRows file_rows(const std::string& path) {
    FileRows out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        ++out.rows;
        out.ids.insert(std::atol(line.c_str() + line.find(':') + 1));
    }
    return out;
}

inline int finish(CliProcess& process, std::chrono::seconds limit = 60s) {
    const auto ended = process.wait_for(limit);
    if (!ended) ADD_FAILURE() << "rowpump still running after " << limit.count() << " s: killed\n" << process.describe();
    return ended ? *ended : process.kill();
}

// Sessions that keep Threads_running up until released (a SLEEP each, on its own connection, killed by
// release()): not for a fixed time, which once ran out on a slow machine before the test had looked.
class BusySessions {
public:
    BusySessions(const MySqlOptions& options, int sessions) : options_(options), tag_("rp_busy_" + std::to_string(::getpid())) {
        for (int i = 0; i < sessions; ++i)
            threads_.emplace_back([this] {
                try {
                    mysql::Connection connection(options_);
                    connection.query("SELECT /* " + tag_ + " */ SLEEP(300)");
                } catch (const std::exception& error) {
                    if (!released_.load()) ADD_FAILURE() << "a busy session failed: " << error.what();
                }
                finished_.fetch_add(1);
            });
    }
    ~BusySessions() { release(); }
    const std::string& tag() const { return tag_; }
    void release() {
        if (!released_.exchange(true)) {
            mysql::Connection killer(options_);
            const std::string sleeping = "SELECT CAST(ID AS CHAR) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%" +
                                         tag_ + "%' AND INFO NOT LIKE '%PROCESSLIST%'";
            // Until every thread is done: a session that had not started its SLEEP yet is killed next time.
            const auto deadline = ThrottleClock::now() + 30s;
            while (!done() && ThrottleClock::now() < deadline) {
                auto rows = killer.query(sleeping);
                std::vector<std::string> ids;
                while (rows.next()) ids.push_back(rows.text(1));
                for (const auto& id : ids) killer.execute_text("KILL QUERY " + id);
                std::this_thread::sleep_for(20ms);
            }
        }
        for (auto& thread : threads_)
            if (thread.joinable()) thread.join();
    }

private:
    bool done() const { return finished_.load() == static_cast<int>(threads_.size()); }
    MySqlOptions options_;
    std::string tag_;
    std::atomic<bool> released_{false};
    std::atomic<int> finished_{0};
    std::vector<std::thread> threads_;
};

class ThrottleTest : public Prepared<MySqlTest> {
protected:
    void prepare() override {
        output_ = temp_file("throttle_out");
        pause_file_ = ::testing::TempDir() + "rp_test_pause_" + std::to_string(::getpid());
    }
    void TearDown() override {
        std::remove(output_.c_str());
        std::filesystem::remove(pause_file_);
        if (!queue_.empty()) {
            tables().connection().execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(queue_));
            for (const char* table : {"rowpump_job_ranges", "rowpump_jobs"})
                if (!tables().rows("SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND "
                                   "table_name = ?",
                                   {std::string(table)})
                         .empty())
                    tables().connection().execute(std::string("DELETE FROM ") + table + " WHERE job_id = ?", {job_id_});
        }
        MySqlTest::TearDown();
    }

    std::string numbered_table(int rows) {
        const auto table = tables().create("throttle", "(id INT PRIMARY KEY, note VARCHAR(20) NOT NULL)");
        tables().execute(table, "INSERT INTO {t} SELECT seq, CONCAT('n', seq) FROM seq_1_to_" + std::to_string(rows));
        return table;
    }

    // A backfill of `table` into the NDJSON file, 2 workers, fixed pages of `page` rows, with an endpoint.
    std::vector<std::string> file_backfill(const std::string& table, int page, std::vector<std::string> more) {
        std::vector<std::string> args{"backfill",      "--mysql",       mysql_url_, "--table",       table,
                                      "--sink",        "file:" + output_, "--overwrite", "--workers", "2",
                                      "--partitions",  "2",             "--page-size", std::to_string(page),
                                      "--page-time-ms", "0",            "--http",      "127.0.0.1:0"};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }

    // A file backfill of `table` that the pause file holds at its start, once both its workers wait at
    // the gate; nullptr (and a failure) if it never served its status.
    std::unique_ptr<CliProcess> held_backfill(const std::string& table) {
        std::ofstream(pause_file_) << "";
        auto run = std::make_unique<CliProcess>(file_backfill(table, 500, {"--pause-file", pause_file_}));
        const int port = endpoint_port(*run);
        EXPECT_GT(port, 0) << run->describe();
        if (port <= 0) return nullptr;
        wait_until_held(port, "paused", 2);
        return run;
    }

    // A backfill of a new numbered table of `rows` rows (file_backfill's).
    std::vector<std::string> numbered_backfill(int rows, int page, std::vector<std::string> more) {
        return file_backfill(numbered_table(rows), page, std::move(more));
    }

    // A numbered_backfill in fixed pages of 100 rows, capped at 1000 rows/s.
    std::vector<std::string> rate_capped_backfill(int rows) {
        return numbered_backfill(rows, 100, {"--max-page-size", "100", "--rate", "1000"});
    }

    // A numbered_backfill that the pause file holds from its start.
    std::vector<std::string> paused_backfill(int rows) {
        std::ofstream(pause_file_) << "";
        return numbered_backfill(rows, 500, {"--pause-file", pause_file_});
    }

    // The end of a run that copies the whole numbered table: exit 0, and every row in the file once.
    void expect_finished_with_every_row(CliProcess& run, int rows) {
        EXPECT_EQ(finish(run), 0) << run.describe();
        expect_every_row_once(rows);
    }

    void expect_every_row_once(int rows) {
        const FileRows got = file_rows(output_);
        EXPECT_EQ(got.rows, static_cast<std::size_t>(rows));
        EXPECT_EQ(got.ids.size(), static_cast<std::size_t>(rows));
        if (!got.ids.empty()) {
            EXPECT_EQ(*got.ids.begin(), 1);
            EXPECT_EQ(*got.ids.rbegin(), rows);
        }
    }

    double threads_running() {
        const auto rows = tables().rows("SHOW GLOBAL STATUS LIKE 'Threads_running'");
        return rows.empty() || !rows[0][1] ? 0 : std::atof(rows[0][1]->c_str());
    }

    // Starts `sessions` busy sessions and waits until every one of them runs: the processlist shows them
    // (the same user's sessions are visible to it). Waiting for Threads_running above 5 instead once
    // stopped early on a moment of another test's load, and the check after it read 3.
    std::unique_ptr<BusySessions> busy(int sessions) {
        auto busy = std::make_unique<BusySessions>(options(), sessions);
        const auto sleeping = [&] {
            const auto rows = tables().rows("SELECT CAST(COUNT(*) AS CHAR) FROM information_schema.PROCESSLIST WHERE "
                                            "INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'",
                                            {"%" + busy->tag() + "%"});
            return rows.empty() || !rows[0][0] ? 0 : std::stoi(*rows[0][0]);
        };
        EXPECT_TRUE(wait_until([&] { return sleeping() >= sessions; }, 15s)) << "every busy session should be sleeping";
        EXPECT_GT(threads_running(), 5) << "the busy sessions should keep Threads_running above 5";
        return busy;
    }

    std::string output_;
    std::string pause_file_;
    std::string queue_;   // a MySQL queue table a test wrote, dropped after it
    std::string job_id_;  // its job's rows in rowpump_jobs and rowpump_job_ranges, deleted after it
};

// The replica scripts/services.sh starts, from ROWPUMP_REPLICA_URL; nullopt when that is not set.
inline std::optional<MySqlOptions> replica_options() {
    const char* url = std::getenv("ROWPUMP_REPLICA_URL");
    if (!url || !*url) return std::nullopt;
    return MySqlOptions::from_url(url);
}

// The replica's URL for the command line: no password, the replica's account is the source's.
inline std::string command_line_url(const MySqlOptions& replica) {
    return "mysql://" + replica.user + "@" + replica.host + ":" + std::to_string(replica.port) + "/" + replica.database;
}

// The replica's SQL thread, stopped for one test and started again whatever happens.
class StoppedSqlThread {
public:
    explicit StoppedSqlThread(const MySqlOptions& replica) : connection_(replica) {
        connection_.execute_text("STOP SLAVE SQL_THREAD");
    }
    ~StoppedSqlThread() { start(); }
    void start() {
        if (started_) return;
        connection_.execute_text("START SLAVE");
        started_ = true;
    }

private:
    mysql::Connection connection_;
    bool started_ = false;
};


}  // namespace rowpump::test
