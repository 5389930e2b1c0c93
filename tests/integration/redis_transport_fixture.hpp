#pragma once
// Backfills and consumers through the CLI against a Redis reached some other way than plain TCP: a unix
// socket (ROWPUMP_REDIS_SOCKET_URL, the TLS Redis's), TLS (ROWPUMP_REDIS_TLS_URL, ROWPUMP_REDIS_TLS_CERTS)
// or Sentinel (ROWPUMP_REDIS_SENTINEL_URL), all exported by `scripts/services.sh env`. A test fails, never
// skips, when its variable is unset. The source table holds ids 1-300; the queue is rp_test:<test>:<pid>.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/redis_fixture.hpp"
#include "redis/connection.hpp"

namespace rowpump::test {

inline std::string env_or_fail(const char* name) {
    const char* value = std::getenv(name);
    if (value && *value) return value;
    ADD_FAILURE() << name << " is not set: this test needs the TLS Redis (with its unix socket) or the Sentinel "
                  << "setup that `bash scripts/services.sh start` (or start-redis-extras) runs, and "
                  << "eval \"$(bash scripts/services.sh env)\"";
    return "";
}

class RedisTransportTest : public MySqlTest {
protected:
    static constexpr std::size_t rows = 300;

    std::optional<SourceTable> source_table() const override {
        return SourceTable{"transport", "(id BIGINT PRIMARY KEY, v VARCHAR(20))",
                           "INSERT INTO {t} SELECT seq, CONCAT('v', seq) FROM seq_1_to_300"};
    }

    void SetUp() override {
        MySqlTest::SetUp();
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        const std::string name = std::string(test->test_suite_name()) + "." + test->name();
        queue_ = "rp_test:" + name + ":" + std::to_string(::getpid());
        job_id_ = "rp_test_" + name + "_" + std::to_string(::getpid());
        outbox_ = temp_file("outbox");
    }
    void TearDown() override {
        if (!cleanup_url_.empty()) {
            try {
                redis::Connection connection(RedisOptions::from_url(cleanup_url_));
                connection.command({"DEL", queue_});
                delete_keys(connection, queue_ + ":*");
                delete_keys(connection, "rowpump:job:" + job_id_ + ":*");
            } catch (const Error&) {
            }
        }
        std::remove(outbox_.c_str());
        MySqlTest::TearDown();
    }

    // `rowpump backfill` of the table into the queue on `sink`, pages of 50 rows, with `extra` flags.
    CliRun backfill(const std::string& sink, const std::vector<std::string>& extra = {}) {
        if (cleanup_url_.empty()) cleanup_url_ = sink;
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", sink,
                                      "--queue", queue_, "--page-size", "50", "--workers", "2"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_rowpump(args);
    }

    // The ids in the queue's list, read through `url`.
    std::vector<std::string> queued_ids(const std::string& url) {
        redis::Connection connection(RedisOptions::from_url(url));
        return ids_of(list_items(connection, queue_));
    }

    // `queue consume --until-empty` through `source`, each task's payload appended to the outbox; the ids
    // the tasks carried, in the order they ran.
    std::vector<std::string> consume(const std::string& source) {
        const CliRun run = run_rowpump({"queue", "consume", "--source", source, "--queue", queue_, "--exec",
                                        "{ cat; echo; } >> '" + outbox_ + "'", "--until-empty"});
        EXPECT_EQ(run.exit_code, 0) << run.describe();
        return ids_of(lines(slurp(outbox_)));
    }

    // Every id 1-300 exactly once.
    static void expect_every_row_once(std::vector<std::string> ids) {
        std::sort(ids.begin(), ids.end());
        std::vector<std::string> expected;
        for (std::size_t id = 1; id <= rows; ++id) expected.push_back(std::to_string(id));
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(ids.size(), rows);
        EXPECT_EQ(ids, expected);
    }

    // The "id" of each JSON payload ({"id":17,"v":"v17"}).
    static std::vector<std::string> ids_of(const std::vector<std::string>& payloads) {
        std::vector<std::string> ids;
        for (const std::string& payload : payloads) {
            const auto at = payload.find("\"id\":");
            if (at == std::string::npos) continue;
            const auto end = payload.find_first_of(",}", at);
            ids.push_back(payload.substr(at + 5, end - at - 5));
        }
        return ids;
    }

    std::string queue_;
    std::string job_id_;
    std::string outbox_;
    std::string cleanup_url_;  // where TearDown deletes the queue and the job's keys
};

}  // namespace rowpump::test
