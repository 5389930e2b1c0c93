// A Redis stream end to end, through the built CLI (docs/streams.md): a backfill with --push xadd writes each
// row once; with --job-id, SIGKILLed runs resumed to the end still write each row once (the page's XADDs and
// its checkpoint are one MULTI/EXEC); two `queue consume --group` processes, one SIGKILLed, process every
// entry at least once (duplicates counted), the survivor taking over the entries idle past --claim-timeout.
// Bad input (a key that is not a stream, delayed rows, --push xadd to a queue table) is exit 2 in one line.
// Keys rp_test:StreamTest.*:<pid> and the jobs' state, removed at the end.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fault/consumer_commands.hpp"
#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

// The fixture's queue_ is the stream's key; clear_redis() removes it, its dead stream and the job's state.
class StreamTest : public MySqlRedisTest {
protected:
    // `rows` rows with ids 3, 6, 9, ...
    std::string numbered_table(const std::string& base, int rows) {
        const auto table = tables().create(base, "(id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL)");
        tables().execute(table, "INSERT INTO {t} SELECT seq * 3, CONCAT('row-', seq) FROM seq_1_to_" + std::to_string(rows));
        return table;
    }

    std::vector<std::string> backfill(const std::string& table) const {
        return {"backfill", "--table", table, "--sink", redis_url_, "--queue", stream_, "--push", "xadd",
                "--partitions", "4", "--workers", "2", "--page-size", "200", "--page-time-ms", "0"};
    }

    // The payload field of every entry, in stream order.
    std::vector<std::string> payloads() {
        std::vector<std::string> out;
        std::string from = "-";
        for (;;) {
            const auto reply = redis_->command({"XRANGE", stream_, from, "+", "COUNT", "5000"});
            if (reply.elements.empty()) return out;
            for (const auto& entry : reply.elements) {
                const auto& fields = entry.elements.at(1).elements;
                EXPECT_EQ(fields.size(), 2u) << "one field a row";
                EXPECT_EQ(fields.at(0).text, "payload");
                out.push_back(fields.at(1).text);
            }
            from = "(" + reply.elements.back().elements.at(0).text;
        }
    }

    // Each id 3, 6, ..., 3 * rows exactly once among the payloads.
    void expect_each_row_once(const std::vector<std::string>& seen, int rows) {
        const std::regex id_of(R"re("id":(\d+))re");
        std::map<long, int> count;
        for (const std::string& payload : seen) {
            std::smatch match;
            ASSERT_TRUE(std::regex_search(payload, match, id_of)) << payload;
            ++count[std::stol(match[1])];
        }
        int missing = 0, repeated = 0;
        for (int i = 1; i <= rows; ++i) {
            const int n = count[3L * i];
            missing += n == 0;
            repeated += n > 1;
        }
        EXPECT_EQ(missing, 0);
        EXPECT_EQ(repeated, 0);
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows));
    }

    void expect_refused(const std::vector<std::string>& args, const std::string& needle) {
        const CliRun run = run_rowpump(args);
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        std::vector<std::string> errors;
        for (const auto& line : lines(run.err))
            if (line.rfind("rowpump: error: ", 0) == 0) errors.push_back(line);
        ASSERT_EQ(errors.size(), 1u) << run.describe();
        EXPECT_NE(errors[0].find(needle), std::string::npos) << run.describe();
    }

    const std::string& stream_ = queue_;
};

TEST_F(StreamTest, ABackfillWritesEachRowAsOneEntryOnce) {
    constexpr int rows = 3000;
    const auto table = numbered_table("stream_plain", rows);
    const CliRun run = run_rowpump(backfill(table));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(redis_->command({"TYPE", stream_}).text, "stream");
    expect_each_row_once(payloads(), rows);
}

// Pages of 2,500 rows, each 2,500 pipelined XADDs (their replies read after the page): one range read by
// one worker keeps the key's order across pages, plain and fenced by a job id.
TEST_F(StreamTest, LargePagesKeepEveryRowOnceInKeyOrder) {
    constexpr int rows = 5000;
    const auto table = numbered_table("stream_big_pages", rows);
    for (const bool with_job : {false, true}) {
        clear_redis();
        std::vector<std::string> args{"backfill", "--table", table, "--sink", redis_url_, "--queue", stream_,
                                      "--push", "xadd", "--partitions", "1", "--workers", "1", "--page-size", "2500",
                                      "--page-time-ms", "0"};
        if (with_job) args.insert(args.end(), {"--job-id", job_id_});
        const CliRun run = run_rowpump(args);
        ASSERT_EQ(run.exit_code, 0) << run.describe();
        const auto seen = payloads();
        expect_each_row_once(seen, rows);
        std::vector<std::string> expected;
        for (int i = 1; i <= rows; ++i) expected.push_back("\"id\":" + std::to_string(3 * i) + ",");
        for (std::size_t i = 0; i < std::min(seen.size(), expected.size()); ++i)
            ASSERT_NE(seen[i].find(expected[i]), std::string::npos) << "entry " << i << " (job id: " << with_job << "): " << seen[i];
    }
}

TEST_F(StreamTest, AMaxlenTrimsTheStreamAsRowsGoIn) {
    const auto table = numbered_table("stream_trim", 3000);
    auto args = backfill(table);
    args.insert(args.end(), {"--stream-maxlen", "500"});
    const CliRun run = run_rowpump(args);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const long long length = redis_->command({"XLEN", stream_}).integer;
    // ~: whole macro nodes (100 entries each by default) are dropped, never below the length asked for.
    EXPECT_GE(length, 500);
    EXPECT_LT(length, 3000);
}

TEST_F(StreamTest, KilledJobRunsResumedWriteEachRowOnce) {
    constexpr int rows = 20000;
    const auto table = numbered_table("stream_job", rows);
    auto args = backfill(table);
    args.insert(args.end(), {"--job-id", job_id_, "--rate", "4000"});
    int killed = 0;
    for (int run = 0; run < 6; ++run) {
        auto argv = args;
        if (redis_->command({"EXISTS", "rowpump:job:" + job_id_ + ":meta"}).integer == 1) argv.push_back("--resume");
        CliProcess child(argv);
        // Killed once it has written something of this run, mid-page or between pages.
        const long long before = redis_->command({"EXISTS", stream_}).integer ? redis_->command({"XLEN", stream_}).integer : 0;
        const bool wrote = wait_until(
            [&] { return child.poll().has_value() || redis_->command({"XLEN", stream_}).integer > before + 300 * (run % 3 + 1); },
            30s);
        ASSERT_TRUE(wrote) << child.describe();
        if (child.poll()) break;
        EXPECT_EQ(child.kill(), -SIGKILL);
        ++killed;
    }
    EXPECT_GE(killed, 3) << "the runs should have been killed mid-job";
    ASSERT_LT(redis_->command({"XLEN", stream_}).integer, rows) << "the killed runs wrote everything: nothing to resume";
    args.push_back("--resume");
    CliProcess last(args);
    const auto ended = last.wait_for(60s);
    ASSERT_TRUE(ended) << last.describe();
    ASSERT_EQ(*ended, 0) << last.describe();
    expect_each_row_once(payloads(), rows);
}

TEST_F(StreamTest, TwoConsumersInOneGroupOneKilledProcessEveryEntry) {
    // Enough entries, at 20 ms and a few processes each, that the first consumer is killed with some in hand.
    constexpr int rows = 80;
    const auto table = numbered_table("stream_consume", rows);
    const CliRun fill = run_rowpump(backfill(table));
    ASSERT_EQ(fill.exit_code, 0) << fill.describe();
    Outbox outbox;
    const auto consumer = [&](const std::string& name, bool until_empty) {
        std::vector<std::string> args{"queue", "consume", "--source", redis_url_, "--queue", stream_, "--group",
                                      "workers", "--consumer", name, "--exec", outbox.command("0.02"), "--batch",
                                      "5", "--claim-timeout", "2"};
        if (until_empty) args.push_back("--until-empty");
        return args;
    };
    CliProcess doomed(consumer("doomed", false));
    ASSERT_TRUE(wait_until([&] { return outbox.count() >= 3 || doomed.poll().has_value(); }, 20s)) << doomed.describe();
    ASSERT_FALSE(doomed.poll().has_value()) << doomed.describe();
    doomed.signal(SIGKILL);
    ASSERT_EQ(doomed.wait_for(10s), -SIGKILL);
    // What it held is pending, in its name, until it has been idle for the claim timeout.
    const auto pending = redis_->command({"XPENDING", stream_, "workers", "-", "+", "100", "doomed:0"});
    EXPECT_GT(pending.elements.size(), 0u) << "the killed consumer held entries";

    CliProcess survivor(consumer("survivor", true));
    const auto ended = survivor.wait_for(60s);
    ASSERT_TRUE(ended) << survivor.describe();
    ASSERT_EQ(*ended, 0) << survivor.describe();
    EXPECT_NE(survivor.err().find("idle past 2000 ms"), std::string::npos)
        << "the survivor should take over the killed consumer's entries\n" << survivor.describe();

    const auto seen = outbox.payloads();
    const std::set<std::string> distinct(seen.begin(), seen.end());
    EXPECT_EQ(distinct.size(), static_cast<std::size_t>(rows)) << "every entry processed at least once";
    const std::size_t duplicates = seen.size() - distinct.size();
    RecordProperty("duplicates", static_cast<int>(duplicates));
    std::printf("[ stream ] %zu entries processed %zu times: %zu duplicates (entries the killed consumer held)\n",
                distinct.size(), seen.size(), duplicates);
    EXPECT_LE(duplicates, pending.elements.size()) << "only what the killed consumer held may run twice";
    const auto group = redis_->command({"XPENDING", stream_, "workers"});
    EXPECT_EQ(group.elements.at(0).integer, 0) << "nothing left pending";
    EXPECT_EQ(redis_->command({"XLEN", stream_ + ":dead"}).integer, 0);
}

TEST_F(StreamTest, AFailingEntryIsRetriedThenMovedToTheDeadStream) {
    const auto table = numbered_table("stream_dead", 3);
    ASSERT_EQ(run_rowpump(backfill(table)).exit_code, 0);
    // Entry id 6 always fails; the others succeed.
    const CliRun drain = run_rowpump({"queue", "consume", "--source", redis_url_, "--queue", stream_, "--group", "g",
                                      "--exec", "grep -q '\"id\":6' && exit 1; exit 0", "--max-attempts", "3",
                                      "--backoff", "0.1", "--backoff-cap", "0.2", "--claim-timeout", "1",
                                      "--until-empty"});
    EXPECT_EQ(drain.exit_code, 4) << "drained, with a task gone dead\n" << drain.describe();
    const auto dead = redis_->command({"XRANGE", stream_ + ":dead", "-", "+"});
    ASSERT_EQ(dead.elements.size(), 1u) << drain.describe();
    std::map<std::string, std::string> fields;
    const auto& flat = dead.elements[0].elements.at(1).elements;
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2) fields[flat[i].text] = flat[i + 1].text;
    EXPECT_NE(fields["payload"].find("\"id\":6"), std::string::npos);
    EXPECT_FALSE(fields["source_id"].empty());
    EXPECT_EQ(redis_->command({"XPENDING", stream_, "g"}).elements.at(0).integer, 0);

    const CliRun stats = run_rowpump({"queue", "stats", "--source", redis_url_, "--queue", stream_, "--group", "g"});
    EXPECT_EQ(stats.exit_code, 0) << stats.describe();
    EXPECT_NE(stats.out.find("dead"), std::string::npos) << stats.describe();
}

TEST_F(StreamTest, BadInputIsOneLineAndExit2) {
    const auto table = numbered_table("stream_bad", 10);
    redis_->command({"RPUSH", stream_, "x"});
    expect_refused(backfill(table), "is a list, expected a stream");
    expect_refused({"queue", "consume", "--source", redis_url_, "--queue", stream_, "--group", "g", "--exec", "true",
                    "--until-empty"},
                   "is a list, expected a stream");
    redis_->command({"DEL", stream_});
    auto delayed = backfill(table);
    delayed.insert(delayed.end(), {"--delay", "60"});
    expect_refused(delayed, "no due times");
    auto priority = backfill(table);
    priority.insert(priority.end(), {"--priority-column", "id", "--priority", "high:10,low"});
    expect_refused(priority, "no priority lists");
    auto table_sink = backfill(table);
    table_sink[4] = mysql_url_for_command_line();
    expect_refused(table_sink, "--push xadd");
    EXPECT_EQ(redis_->command({"EXISTS", stream_}).integer, 0) << "nothing written";
}

}  // namespace
}  // namespace rowpump::test
