// `rowpump backfill` as a user runs it: bad flags and bad targets exit 2 (or 1) with one clear line and
// write nothing; --dry-run prints the plan and writes nothing; --summary-json is valid JSON with the real
// counts; Ctrl-C in the middle exits 3 and the summary says where each range stopped.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "integration/redis_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A finished run and how long it took from its start: the unreachable-sink test bounds the time.
struct CliResult : CliRun {
    double seconds = 0;
};

// Waits for `process`, started at `started`; one still running after `limit` is a failure and is killed.
CliResult finish(CliProcess& process, Clock::time_point started, std::chrono::seconds limit = 60s) {
    CliResult result;
    const auto ended = process.wait_for(limit);
    if (!ended) ADD_FAILURE() << "rowpump still running after " << limit.count() << " s: killed";
    result.exit_code = ended ? *ended : process.kill();
    result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    result.out = process.out();
    result.err = process.err();
    return result;
}

CliResult run_cli(const std::vector<std::string>& args, std::chrono::seconds limit = 60s) {
    const auto started = Clock::now();
    CliProcess process(args);
    return finish(process, started, limit);
}

std::string describe(const CliResult& result) {
    return "exit " + std::to_string(result.exit_code) + " after " + std::to_string(result.seconds) +
           " s\n--- stdout ---\n" + result.out.substr(0, 3000) + "\n--- stderr ---\n" + result.err.substr(0, 3000);
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// Bad input: exit 2, nothing on stdout, and one line on stderr that names the problem.
void expect_bad_input(const CliResult& result, const std::string& needle) {
    EXPECT_GE(result.exit_code, 0) << "killed by a signal\n" << describe(result);
    EXPECT_EQ(result.exit_code, 2) << describe(result);
    EXPECT_EQ(result.out, "") << describe(result);
    const auto err = lines(result.err);
    ASSERT_EQ(err.size(), 1u) << "one clear line\n" << describe(result);
    EXPECT_TRUE(contains(err[0], needle)) << "the error should mention '" << needle << "'\n" << describe(result);
}

// A flag the parser rejects: exit 2 and a first line that contains `needle`; the parser may add lines of
// help after it (docs/DESIGN.md, "Errors, exit codes, logs": one clear line first, details after).
void expect_refused_by_parser(const CliResult& result, const std::string& needle) {
    EXPECT_EQ(result.exit_code, 2) << describe(result);
    EXPECT_EQ(result.out, "") << describe(result);
    const auto err = lines(result.err);
    ASSERT_FALSE(err.empty()) << describe(result);
    EXPECT_TRUE(contains(err[0], needle)) << describe(result);
}

class BackfillCliTest : public MySqlRedisTest {
protected:
    std::string numbered_table(int rows) {
        const auto table = tables().create("bf_cli", "(id INT PRIMARY KEY, amount DECIMAL(8,2) NOT NULL)");
        tables().execute(table, "INSERT INTO {t} SELECT seq, seq % 200 FROM seq_1_to_" + std::to_string(rows));
        return table;
    }

    // Every key this test's queue could have created: none may exist after a refused run.
    long long queue_keys() {
        long long count = redis_->command({"EXISTS", queue_, queue_ + ":delayed", queue_ + ":p:high",
                                           queue_ + ":p:low", queue_ + ":p:bad"})
                              .integer;
        return count;
    }

    std::vector<std::string> redis_args(const std::string& table) {
        return {"backfill", "--table", table, "--sink", redis_url_, "--queue", queue_};
    }

};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// The parser names the flag, and adds one line of help at most.
TEST_F(BackfillCliTest, ZeroWorkersExits2) {
    const auto table = numbered_table(10);
    const auto result = run_cli(with(redis_args(table), {"--workers", "0"}));
    expect_refused_by_parser(result, "--workers");
    EXPECT_LE(lines(result.err).size(), 2u) << describe(result);
    EXPECT_EQ(queue_keys(), 0);
}

TEST_F(BackfillCliTest, UnknownSinkSchemeExits2) {
    const auto table = numbered_table(10);
    const auto result = run_cli({"backfill", "--table", table, "--sink", "kafka://127.0.0.1:9092", "--queue", queue_});
    expect_bad_input(result, "kafka://127.0.0.1:9092");
    // The accepted forms read as the help writes them: their placeholders are no passwords to hide.
    EXPECT_TRUE(contains(result.err, "redis://[user:pass@]host:port/db (or rediss://, redis+unix://, redis-sentinel://), "
                                     "redis-cluster://[user:pass@]host:port[,host:port...]/ (or rediss-cluster://) or "
                                     "mysql://user:pass@host:port/db"))
        << "says which forms are accepted\n" << describe(result);
}

// --job-id "$JOB" with JOB unset gives "": refused before anything is written, or a second run would write
// every row again.
TEST_F(BackfillCliTest, EmptyJobIdExits2AndWritesNothing) {
    const auto table = numbered_table(10);
    expect_refused_by_parser(run_cli(with(redis_args(table), {"--job-id", ""})),
                             "--job-id: a job id must be 1 to 191 characters, got 0");
    EXPECT_EQ(queue_keys(), 0);
    EXPECT_EQ(run_cli(with(redis_args(table), {"--job-id", std::string(192, 'j')})).exit_code, 2);
}

// Exit 2 means nothing was written: a run refused after its sink was checked (here by the planner: minmax
// cannot split a VARCHAR key) leaves the file it was told to overwrite as it was.
TEST_F(BackfillCliTest, RefusedRunLeavesTheFileItWouldOverwrite) {
    const auto table = tables().create("bf_cli_kv", "(k VARCHAR(20) PRIMARY KEY, v INT)");
    tables().execute(table, "INSERT INTO {t} VALUES ('a', 1), ('b', 2)");
    const std::string kept = fresh_temp_path("keep.ndjson");
    std::ofstream(kept) << "precious\n";
    const auto result = run_cli({"backfill", "--table", table, "--sink", "file:" + kept, "--overwrite",
                                 "--partition-strategy", "minmax", "--partitions", "2"});
    expect_bad_input(result, "minmax");
    EXPECT_EQ(slurp(kept), "precious\n");
    // The same run with a strategy that can split it replaces the file.
    const auto replaced = run_cli({"backfill", "--table", table, "--sink", "file:" + kept, "--overwrite", "-q"});
    EXPECT_EQ(replaced.exit_code, 0) << describe(replaced);
    EXPECT_EQ(lines(slurp(kept)).size(), 2u) << slurp(kept);
    std::remove(kept.c_str());
}

// -q and -v are the program's, but users put them after the subcommand's flags too.
TEST_F(BackfillCliTest, QuietAndVerboseWorkAfterTheSubcommand) {
    const auto table = numbered_table(10);
    const auto quiet = run_cli(with(redis_args(table), {"-q"}));
    EXPECT_EQ(quiet.exit_code, 0) << describe(quiet);
    EXPECT_EQ(quiet.err, "") << describe(quiet);
    EXPECT_EQ(redis_->command({"LLEN", queue_}).integer, 10);
    const auto verbose = run_cli({"partition", "--table", table, "--partitions", "2", "--verbose"});
    EXPECT_EQ(verbose.exit_code, 0) << describe(verbose);
    EXPECT_TRUE(contains(verbose.err, "debug")) << describe(verbose);
}

TEST_F(BackfillCliTest, RedisSinkWithoutQueueExits2) {
    const auto table = numbered_table(10);
    expect_bad_input(run_cli({"backfill", "--table", table, "--sink", redis_url_}), "--queue");
}

TEST_F(BackfillCliTest, BadPriorityLevelsExit2) {
    const auto table = numbered_table(10);
    expect_bad_input(run_cli(with(redis_args(table), {"--priority-column", "amount", "--priority", "bad"})),
                     "two levels");
    expect_bad_input(run_cli(with(redis_args(table), {"--priority-column", "amount", "--priority", "high:x,low"})),
                     "high:x");
    expect_bad_input(run_cli(with(redis_args(table), {"--priority", "high:10,low"})), "--priority-column");
    EXPECT_EQ(queue_keys(), 0);
}

TEST_F(BackfillCliTest, PriorityColumnThatIsNotNumericExits2AndWritesNothing) {
    const auto table = tables().create("bf_cli_text", "(id INT PRIMARY KEY, note VARCHAR(20) NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, CONCAT('n', seq) FROM seq_1_to_20");
    const std::vector<std::string> routed{"--priority-column", "note", "--priority", "high:10,low"};
    expect_bad_input(run_cli(with(redis_args(table), routed)), "priority column 'note' is varchar(20)");
    expect_bad_input(run_cli(with(with(redis_args(table), routed), {"--dry-run"})), "priority column 'note'");
    // A job file that routes by it: `explain` refuses it as `run --dry-run` does, instead of showing the plan
    // of a job the run would refuse.
    const std::string path = fresh_temp_path("text_priority_job") + ".yaml";
    std::ofstream(path) << "source:\n  mysql: ${ROWPUMP_MYSQL_URL}\n  table: " << table << "\nsink:\n  uri: \""
                        << redis_url_ << "\"\n  queue: \"" << queue_
                        << "\"\n  priority:\n    column: note\n    levels: [{name: high, min: 10}, {name: low}]\n";
    expect_bad_input(run_cli({"explain", path}), "priority column 'note' is varchar(20)");
    expect_bad_input(run_cli({"run", path, "--dry-run"}), "priority column 'note' is varchar(20)");
    std::remove(path.c_str());
    const auto numbers = numbered_table(20);
    expect_bad_input(run_cli(with(redis_args(numbers), {"--priority-column", "amount", "--priority", "high:nan,low"})),
                     "high:nan");
    EXPECT_EQ(queue_keys(), 0);
}

// Each bad number is refused by the parser with one line naming the flag, and short bounds in it.
TEST_F(BackfillCliTest, BadNumbersInBackfillFlagsExit2NamingTheFlag) {
    const auto table = numbered_table(10);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--partitions", "-1"}, "--partitions: expected a whole number from 1 to 1000000, got '-1'"},
        {{"--partitions", "99999999999999999999999"}, "--partitions: expected a whole number from 1 to 1000000"},
        {{"--partitions", "0"}, "--partitions: expected a whole number from 1 to 1000000, got '0'"},
        {{"--workers", "-1"}, "--workers: expected a whole number from 1 to 256, got '-1'"},
        {{"--rate", "nan"}, "--rate: expected 0 or a number from 1 to 1000000000, got 'nan'"},
        {{"--rate", "-5"}, "--rate: expected 0 or a number from 1 to 1000000000, got '-5'"},
        // The bounds and the reader POST /rate and /max-lag share (src/bounded_number.hpp).
        {{"--rate", "1e-300"}, "--rate: expected 0 or a number from 1 to 1000000000, got '1e-300'"},
        {{"--rate", "-0"}, "--rate: expected 0 or a number from 1 to 1000000000, got '-0'"},
        {{"--max-lag", "1e308"}, "--max-lag: expected a number from 0.001 to 315360000, got '1e308'"},
        {{"--delay", "nan"}, "--delay: expected a number from 0 to 315360000, got 'nan'"},
        {{"--delay", "inf"}, "--delay: expected a number from 0 to 315360000, got 'inf'"},
        {{"--high-water", "-1"}, "--high-water: expected a whole number of at least 0, got '-1'"},
        {{"--page-time-ms", "-1"}, "--page-time-ms: expected a whole number from 0 to 3600000, got '-1'"},
        {{"--page-size", "0"}, "--page-size: expected a whole number from 1 to 1000000, got '0'"},
        {{"--max-page-size", "10", "--page-size", "5000"}, "--max-page-size 10 is below --page-size 5000"},
    };
    for (const auto& [flags, needle] : cases) {
        SCOPED_TRACE(flags.front() + " " + flags.at(1));
        const auto result = run_cli(with(redis_args(table), flags), 30s);
        expect_bad_input(result, needle);
        EXPECT_LT(result.err.size(), 200u) << "a short line, no 300-digit bound\n" << describe(result);
    }
    EXPECT_EQ(queue_keys(), 0);
}

TEST_F(BackfillCliTest, BadNumbersInPartitionAndQueueFlagsExit2NamingTheFlag) {
    const auto table = numbered_table(10);
    const std::vector<std::string> queue{"--source", redis_url_, "--queue", queue_};
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"partition", "--table", table, "--partitions", "-1"}, "--partitions: expected a whole number from 1"},
        {with({"queue", "requeue-dead", "--limit", "-1"}, queue), "--limit: expected a whole number of at least 1"},
        {with({"queue", "requeue-dead", "--limit", "0"}, queue), "--limit: expected a whole number of at least 1"},
        {with({"queue", "consume", "--exec", "true", "--until-empty", "--concurrency", "-1"}, queue), "--concurrency"},
        {with({"queue", "consume", "--exec", "true", "--until-empty", "--batch", "0"}, queue), "--batch"},
        {with({"queue", "consume", "--exec", "true", "--until-empty", "--max-attempts", "-1"}, queue),
         "--max-attempts"},
        {with({"queue", "consume", "--exec", "true", "--until-empty", "--backoff", "nan"}, queue), "--backoff"},
        {with({"queue", "consume", "--exec", "true", "--until-empty", "--poll", "inf"}, queue), "--poll"},
        {with({"queue", "consume", "--exec", "true", "--until-empty", "--reap-interval", "-1"}, queue),
         "--reap-interval"},
        {with({"queue", "stats", "--heartbeat-timeout", "nan"}, queue), "--heartbeat-timeout"},
        {with({"queue", "reap", "--claim-timeout", "-5"}, queue), "--claim-timeout"},
        {with({"queue", "purge", "--older-than", "-1"}, queue), "--older-than"},
    };
    for (const auto& [args, needle] : cases) {
        SCOPED_TRACE(args.at(0) + " " + args.at(1) + " ... " + needle);
        const auto result = run_cli(args, 30s);
        expect_bad_input(result, needle);
        EXPECT_LT(result.err.size(), 200u) << describe(result);
    }
    EXPECT_EQ(queue_keys(), 0);
}

// "id<3) OR (1=1" would OR past the key bounds and write ids 1 and 2 once per page; "1=1) -- " would
// comment out the bounds, and with --job-id it failed only after the job's state had been created.
TEST_F(BackfillCliTest, WhereThatLeavesItsParenthesesExits2BeforeAnythingIsCreated) {
    const auto table = numbered_table(100);
    const std::string pid = std::to_string(::getpid());
    const std::string job_id = "rp_test_bf_where_" + pid;
    const std::string queue_table = "rp_test_bf_where_q_" + pid;
    const auto table_exists = [&](const std::string& name) {
        return !tables()
                    .rows("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
                          "TABLE_NAME = ?",
                          {name})
                    .empty();
    };
    const auto job_rows = [&] {
        if (!table_exists("rowpump_jobs")) return std::size_t{0};
        return tables().rows("SELECT 1 FROM rowpump_jobs WHERE job_id = ?", {job_id}).size();
    };

    expect_bad_input(run_cli(with(redis_args(table), {"--where", "id<3) OR (1=1"})),
                     "--where: unbalanced ')' at character 5");
    expect_bad_input(run_cli(with(redis_args(table), {"--where", "1=1) -- ", "--job-id", job_id})),
                     "--where: unbalanced ')' at character 4");
    EXPECT_EQ(queue_keys(), 0);
    EXPECT_EQ(redis_->command({"EXISTS", "rowpump:job:" + job_id + ":meta"}).integer, 0) << "the job was created";

    expect_bad_input(run_cli({"backfill", "--table", table, "--sink", mysql_url_, "--queue", queue_table, "--where",
                              "1=1) -- ", "--job-id", job_id}),
                     "--where: unbalanced ')'");
    EXPECT_FALSE(table_exists(queue_table)) << "the queue table was created";
    EXPECT_EQ(job_rows(), 0u) << "the job was created";

    expect_bad_input(run_cli({"partition", "--table", table, "--partitions", "2", "--where", "id = 1 -- the end"}),
                     "--where: a comment at character 8 runs to the end");
    expect_bad_input(run_cli(with(redis_args(table), {"--where", "id = 1 /*! OR 1=1 */", "--dry-run"})),
                     "--where: an executable comment");

    // What a run without the check would have left behind.
    delete_keys(*redis_, "rowpump:job:" + job_id + ":*");
    tables().connection().execute("DROP TABLE IF EXISTS " + mysql::quote_identifier(queue_table));
    if (table_exists("rowpump_jobs")) {
        tables().connection().execute("DELETE FROM rowpump_job_ranges WHERE job_id = ?", {job_id});
        tables().connection().execute("DELETE FROM rowpump_jobs WHERE job_id = ?", {job_id});
    }
}

// The same filter in a job file is a ConfigError at its line and column, for `run` and `explain`.
TEST_F(BackfillCliTest, JobFileWhereThatLeavesItsParenthesesExits2) {
    const auto table = numbered_table(10);
    const std::string path = fresh_temp_path("where_job") + ".yaml";
    std::ofstream(path) << "source:\n  mysql: ${ROWPUMP_MYSQL_URL}\n  table: " << table
                        << "\n  where: \"id<3) OR (1=1\"\nsink:\n  uri: \"" << redis_url_ << "\"\n  queue: \"" << queue_
                        << "\"\n";
    for (const char* command : {"run", "explain"}) {
        SCOPED_TRACE(command);
        expect_bad_input(run_cli({command, path}), path + ":4:10: source.where: unbalanced ')' at character 5");
    }
    expect_bad_input(run_cli({"run", path, "--set", "source.where=1=1) -- "}),
                     "--set source.where=1=1) -- : unbalanced ')' at character 4");
    std::remove(path.c_str());
    EXPECT_EQ(queue_keys(), 0);
}

TEST_F(BackfillCliTest, SummaryJsonThatCannotBeWrittenExits2BeforeAnyRow) {
    const auto table = numbered_table(500);
    const std::string path = fresh_temp_path("no_such_dir") + "/summary.json";
    expect_bad_input(run_cli(with(redis_args(table), {"--summary-json", path})),
                     "--summary-json: cannot write '" + path + "': No such file or directory");
    expect_bad_input(run_cli(with(redis_args(table), {"--summary-json", ::testing::TempDir()})),
                     "--summary-json: cannot write");
    EXPECT_EQ(queue_keys(), 0) << "rows were written before the summary path was checked";
}

TEST_F(BackfillCliTest, SummaryJsonFileIsUntouchedWhenTheRunFailsBeforeItsEnd) {
    const std::string missing_table = "rp_test_no_such_table_" + std::to_string(::getpid());
    const std::string kept = fresh_temp_path("kept.json");
    std::ofstream(kept) << "the summary of an earlier run\n";
    expect_bad_input(run_cli(with(redis_args(missing_table), {"--summary-json", kept})), missing_table);
    EXPECT_EQ(slurp(kept), "the summary of an earlier run\n");
    std::remove(kept.c_str());

    const std::string fresh = fresh_temp_path("fresh.json");
    expect_bad_input(run_cli(with(redis_args(missing_table), {"--summary-json", fresh})), missing_table);
    EXPECT_NE(::access(fresh.c_str(), F_OK), 0) << "an empty summary file was left behind";
    std::remove(fresh.c_str());
}

// The rows are in the queue when the summary fails: the error says so, and the run does not end in 0.
TEST_F(BackfillCliTest, SummaryJsonWriteErrorIsReportedAndSaysTheRowsWereWritten) {
    const auto table = numbered_table(500);
    const auto result = run_cli(with(redis_args(table), {"--summary-json", "/dev/full"}));
    EXPECT_GE(result.exit_code, 0) << "killed by a signal\n" << describe(result);
    EXPECT_EQ(result.exit_code, 1) << describe(result);
    EXPECT_EQ(redis_->command({"LLEN", queue_}).integer, 500);
    const auto err = lines(result.err);
    ASSERT_FALSE(err.empty()) << describe(result);
    EXPECT_TRUE(contains(err.back(), "rowpump: error: cannot write the summary to '/dev/full': No space left on "
                                     "device"))
        << describe(result);
    EXPECT_TRUE(contains(err.back(), "wrote 500 rows")) << describe(result);
}

TEST_F(BackfillCliTest, UnreachableRedisFailsWithAClearLineAndReadsNothing) {
    const auto table = numbered_table(10);
    const auto result = run_cli({"backfill", "--table", table, "--sink", "redis://127.0.0.1:1/0", "--queue", queue_},
                                60s);
    EXPECT_GE(result.exit_code, 0) << "killed by a signal\n" << describe(result);
    EXPECT_NE(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.out, "") << describe(result);
    const auto err = lines(result.err);
    ASSERT_FALSE(err.empty()) << describe(result);
    EXPECT_TRUE(contains(err.back(), "rowpump: error: ")) << describe(result);
    EXPECT_TRUE(contains(err.back(), "127.0.0.1:1")) << describe(result);
    EXPECT_FALSE(contains(result.err, "rows estimated")) << "nothing may be read\n" << describe(result);
    EXPECT_FALSE(contains(result.err, "rows read")) << describe(result);
    // The first line already says what is wrong; the sink then retries for its outage budget (30 s,
    // SinkSpec::timeouts) before giving up.
    EXPECT_TRUE(contains(err.front(), "127.0.0.1:1")) << describe(result);
    EXPECT_LE(result.seconds, 45.0) << describe(result);
}

TEST_F(BackfillCliTest, QueueTableOfTheWrongShapeExits2AndWritesNothing) {
    const auto table = numbered_table(50);
    const auto queue_table = tables().create("bf_cli_wrongq", "(id INT PRIMARY KEY, body TEXT)");
    const auto result = run_cli({"backfill", "--table", table, "--sink", mysql_url_, "--queue", queue_table});
    expect_bad_input(result, "wrong shape");
    EXPECT_TRUE(contains(result.err, queue_table)) << describe(result);
    const auto options = mysql_options_from_env();
    ASSERT_TRUE(options);
    if (!options->password.empty()) {
        EXPECT_FALSE(contains(result.err, options->password)) << "password shown\n" << describe(result);
    }
    EXPECT_EQ(tables().count(queue_table), 0u);
    const auto columns = tables().rows("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                                       "DATABASE() AND TABLE_NAME = ?",
                                       {queue_table});
    EXPECT_EQ(columns.at(0).at(0), "2") << "the table was altered";
}

TEST_F(BackfillCliTest, DryRunPrintsRangesAndSqlAndWritesNothing) {
    const auto table = numbered_table(3000);
    const auto result = run_cli(with(redis_args(table), {"--partitions", "3", "--workers", "2", "--dry-run"}));
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    const auto out = lines(result.out);
    int ranges = 0;
    for (const auto& line : out) {
        if (line.rfind("range ", 0) != 0) continue;
        ++ranges;
        EXPECT_TRUE(contains(line, "SELECT")) << line;
        EXPECT_TRUE(contains(line, table)) << line;
    }
    EXPECT_EQ(ranges, 3) << describe(result);
    EXPECT_TRUE(contains(result.out, "dry run")) << describe(result);
    EXPECT_EQ(queue_keys(), 0) << "a dry run wrote to the queue";
}

// partition --json: an array of {lo, hi, estimated_rows}, open bounds null, key parts as JSON numbers
// (integers) or strings (text), each range's hi the next one's lo. An integer key's last range stops at the
// bound frozen when planned; a text key's is open above.
TEST_F(BackfillCliTest, PartitionJsonGivesEachRangesBoundsAsKeyArrays) {
    const auto numbers = numbered_table(200);
    const auto words = tables().create("bf_cli_words", "(k VARCHAR(20) PRIMARY KEY)");
    tables().execute(words, "INSERT INTO {t} SELECT CONCAT('w', LPAD(seq, 4, '0')) FROM seq_1_to_200");
    for (const auto& [table, integer_key] : {std::pair{numbers, true}, std::pair{words, false}}) {
        const auto result = run_cli({"partition", "--table", table, "--partitions", "2", "--json"});
        ASSERT_EQ(result.exit_code, 0) << describe(result);
        rapidjson::Document plan;
        plan.Parse(result.out.c_str());
        ASSERT_FALSE(plan.HasParseError()) << "not JSON:\n" << result.out;
        ASSERT_TRUE(plan.IsArray() && plan.Size() == 2) << result.out;
        EXPECT_TRUE(plan[0]["lo"].IsNull()) << result.out;
        EXPECT_EQ(plan[1]["hi"].IsNull(), !integer_key) << result.out;
        const auto& split = plan[0]["hi"];
        ASSERT_TRUE(split.IsArray() && split.Size() == 1) << result.out;
        EXPECT_EQ(integer_key ? split[0].IsInt64() : split[0].IsString(), true) << result.out;
        EXPECT_TRUE(plan[1]["lo"] == split) << "each range starts where the one before ends: " << result.out;
        EXPECT_GT(plan[0]["estimated_rows"].GetUint64() + plan[1]["estimated_rows"].GetUint64(), 0u) << result.out;
    }
}

TEST_F(BackfillCliTest, SummaryJsonHasTheRealCounts) {
    const auto table = numbered_table(2500);
    const std::string json_path = fresh_temp_path("summary.json");
    const auto result = run_cli(with(redis_args(table), {"--partitions", "4", "--workers", "2", "--page-size", "100",
                                                         "--summary-json", json_path}));
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_TRUE(contains(result.err, "done: 2500 rows read, 2500 written")) << describe(result);
    EXPECT_EQ(redis_->command({"LLEN", queue_}).integer, 2500);

    const std::string text = slurp(json_path);
    std::remove(json_path.c_str());
    rapidjson::Document summary;
    summary.Parse(text.c_str());
    ASSERT_FALSE(summary.HasParseError()) << "not JSON:\n" << text;
    ASSERT_TRUE(summary.IsObject()) << text;
    ASSERT_TRUE(summary.HasMember("rows_written") && summary["rows_written"].IsUint64()) << text;
    EXPECT_EQ(summary["rows_written"].GetUint64(), 2500u) << text;
    EXPECT_EQ(summary["rows_read"].GetUint64(), 2500u) << text;
    EXPECT_STREQ(summary["status"].GetString(), "done") << text;
    ASSERT_TRUE(summary["ranges"].IsArray()) << text;
    EXPECT_GE(summary["ranges"].Size(), 4u) << text;
    for (const auto& range : summary["ranges"].GetArray()) EXPECT_TRUE(range["finished"].GetBool()) << text;
    ASSERT_TRUE(summary.HasMember("steals") && summary["steals"].IsUint64()) << text;
    EXPECT_FALSE(summary.HasMember("splits")) << "steals are named steals: " << text;
    EXPECT_EQ(summary["ranges"].Size(), 4u + summary["steals"].GetUint64()) << "each steal adds a range: " << text;
    EXPECT_TRUE(contains(result.err, ", " + std::to_string(summary["steals"].GetUint64()) + " splits"))
        << "the summary line counts the same steals\n" << describe(result);
}

TEST_F(BackfillCliTest, SigintMidRunExits3AndSaysWhereRangesStopped) {
    const auto table = numbered_table(5000);
    const std::string json_path = fresh_temp_path("interrupted.json");
    const auto started = Clock::now();
    CliProcess process(with(redis_args(table), {"--partitions", "3", "--workers", "2", "--page-size", "100",
                                                "--rate", "2000", "--summary-json", json_path}));
    // Interrupt once rows are flowing, not while the job is still planning.
    const auto deadline = Clock::now() + 20s;
    while (redis_->command({"LLEN", queue_}).integer < 300 && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
    process.signal(SIGINT);
    const auto result = finish(process, started);

    EXPECT_GE(result.exit_code, 0) << "killed by a signal\n" << describe(result);
    EXPECT_EQ(result.exit_code, 3) << describe(result);
    EXPECT_TRUE(contains(result.err, "interrupted")) << describe(result);
    EXPECT_TRUE(contains(result.err, "stopped after")) << "where the ranges stopped\n" << describe(result);
    const long long queued = redis_->command({"LLEN", queue_}).integer;
    EXPECT_GT(queued, 0) << describe(result);
    EXPECT_LT(queued, 5000) << describe(result);
    EXPECT_TRUE(contains(result.err, std::to_string(queued) + " written")) << "the summary counts what is in the "
                                                                              "queue ("
                                                                           << queued << ")\n"
                                                                           << describe(result);

    const std::string text = slurp(json_path);
    std::remove(json_path.c_str());
    rapidjson::Document summary;
    summary.Parse(text.c_str());
    ASSERT_FALSE(summary.HasParseError()) << "not JSON:\n" << text;
    EXPECT_STREQ(summary["status"].GetString(), "interrupted") << text;
    EXPECT_EQ(summary["rows_written"].GetUint64(), static_cast<std::uint64_t>(queued)) << text;
}

}  // namespace
}  // namespace rowpump::test
