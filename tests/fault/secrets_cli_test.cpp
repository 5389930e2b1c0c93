// The built CLI and what it shows of secrets and user data: a password given on the command line is
// masked in /proc/PID/cmdline while rowpump runs, URL errors never echo a password (with or without a
// scheme, from every entry point), consumer failure lines name a task without its payload, and bad input
// that used to reach the server (a Redis database out of range, keys of the wrong type, a table name
// with an emoji, an existing output file) is one clear line with exit 2. Tables rp_test_*, keys rp_test:*.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/redis_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Files the tests write themselves (a job, a password file, an output file), named by purpose.
std::string temp_path(const std::string& name) {
    return ::testing::TempDir() + "rowpump_secrets_" + std::to_string(::getpid()) + "_" + name;
}

// Runs the CLI to its end and checks it failed the way bad input must: exit 2, nothing on stdout, one
// line on stderr that mentions every one of `needles` and none of `secrets` (and, after it, the warning
// when a password was on the command line).
void expect_refused(const std::vector<std::string>& args, const std::vector<std::string>& needles,
                    const std::vector<std::string>& secrets = {},
                    const EnvOverride& env = {}) {
    CliProcess cli(args, env);
    EXPECT_EQ(cli.wait_for(60s), 2) << cli.describe();
    EXPECT_EQ(cli.out(), "") << cli.describe();
    auto err = lines(cli.err());
    if (err.size() == 2 && err[1].find("warning: a password was given on the command line") != std::string::npos)
        err.pop_back();
    ASSERT_EQ(err.size(), 1u) << "one clear line\n" << cli.describe();
    EXPECT_EQ(err[0].rfind("rowpump: error: ", 0), 0u) << cli.describe();
    for (const auto& needle : needles)
        EXPECT_NE(err[0].find(needle), std::string::npos) << "should mention '" << needle << "'\n" << cli.describe();
    for (const auto& secret : secrets) EXPECT_EQ(cli.err().find(secret), std::string::npos) << cli.describe();
}

std::string cmdline(pid_t pid) {
    std::string text = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    for (char& c : text)
        if (c == '\0') c = ' ';
    return text;
}

std::string url_with_password(const MySqlOptions& options, const std::string& password) {
    return "mysql://" + options.user + ":" + password + "@" + options.host + ":" + std::to_string(options.port) + "/" +
           options.database;
}

// ------------------------------------------------------------------------------- a password in argv

class ArgvPasswordTest : public Prepared<MySqlTest> {
protected:
    void prepare() override {
        ASSERT_FALSE(options().password.empty()) << "the local account has no password: nothing to hide";
    }
    std::optional<SourceTable> source_table() const override {
        SourceTable table = queue_table_of_this_test();
        table.base = "argv_q";
        return table;
    }
};

// A consumer of an empty queue waits until it is told to stop: long enough to look at its arguments,
// both as `--source URL` and as `--source=URL`.
TEST_F(ArgvPasswordTest, PasswordInTheCommandLineIsMaskedWhileItRuns) {
    const std::string password = options().password;
    const std::string url = url_with_password(options(), password);
    for (const bool joined : {false, true}) {
        std::vector<std::string> args{"queue", "consume"};
        if (joined) {
            args.push_back("--source=" + url);
        } else {
            args.push_back("--source");
            args.push_back(url);
        }
        for (const char* arg : {"--queue", "", "--exec", "cat > /dev/null"}) args.push_back(*arg ? arg : table_);
        CliProcess consumer(args, {{"ROWPUMP_MYSQL_PASSWORD", std::nullopt}, {"ROWPUMP_MYSQL_PASSWORD_FILE", std::nullopt}});
        // The consumer logs its start after it has connected, long after the arguments were masked.
        ASSERT_TRUE(wait_until([&] { return consumer.err().find("consuming queue") != std::string::npos; }, 20s))
            << consumer.describe();
        const std::string shown = cmdline(consumer.pid());
        EXPECT_EQ(shown.find(password), std::string::npos) << shown;
        EXPECT_NE(shown.find("mysql://" + options().user + ":" + std::string(password.size(), 'x') + "@" +
                             options().host + ":" + std::to_string(options().port) + "/" + options().database),
                  std::string::npos)
            << "the rest of the URL should stay readable: " << shown;
        EXPECT_NE(shown.find("cat > /dev/null"), std::string::npos) << shown;
        consumer.signal(SIGTERM);
        EXPECT_EQ(consumer.wait_for(60s), 0) << consumer.describe();
        // Said once, first, where it is read: not after the summary.
        const auto err = lines(consumer.err());
        ASSERT_FALSE(err.empty()) << consumer.describe();
        EXPECT_NE(err[0].find("ROWPUMP_MYSQL_PASSWORD"), std::string::npos)
            << "the run should recommend the password variables before anything else\n"
            << consumer.describe();
        EXPECT_EQ(consumer.err().find("ROWPUMP_MYSQL_PASSWORD", consumer.err().find('\n')), std::string::npos)
            << "the recommendation should be said once\n" << consumer.describe();
        EXPECT_EQ(consumer.err().find(password), std::string::npos) << consumer.describe();
    }
}

// ------------------------------------------------------------------------- URL errors and passwords

TEST(UrlErrorCliTest, UrlWithoutSchemeNeverEchoesItsPassword) {
    const std::string secret = "Cli-S3cret-42";
    const std::string url = "u:" + secret + "@127.0.0.1:3306/db";
    expect_refused({"read", "--mysql", url, "--table", "t"}, {"malformed URL", "u:***@127.0.0.1:3306/db"}, {secret});
    expect_refused({"queue", "stats", "--source", url, "--queue", "q"}, {"u:***@127.0.0.1"}, {secret});
    expect_refused({"queue", "stats", "--source", "redis-" + url, "--queue", "q"}, {"neither"}, {secret});

    const std::string job = temp_path("job.yaml");
    std::ofstream(job) << "source:\n  mysql: " << url << "\n  table: t\nsink:\n  uri: stdout\n";
    expect_refused({"run", job}, {job + ":2:", "source.mysql", "malformed URL"}, {secret});
    expect_refused({"run", job, "--set", "source.mysql=x:" + secret + "@h/db"}, {"malformed URL"}, {secret});
    std::remove(job.c_str());
}

// ------------------------------------------------------------------- password files from the shell

class PasswordFileCliTest : public MySqlTest {};

TEST_F(PasswordFileCliTest, FileEndingInCrlfAuthenticates) {
    const auto table = tables().create("pwfile", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} VALUES (7)");
    const std::string file = temp_path("password");
    std::ofstream(file, std::ios::binary) << options().password << "\r\n";
    CliProcess read({"read", "--table", table},
             {{"ROWPUMP_MYSQL_URL", mysql_url_for_command_line()},
              {"ROWPUMP_MYSQL_PASSWORD", std::nullopt},
              {"ROWPUMP_MYSQL_PASSWORD_FILE", file}});
    EXPECT_EQ(read.wait_for(60s), 0) << read.describe();
    EXPECT_EQ(read.out(), "{\"id\":7}\n") << read.describe();
    std::remove(file.c_str());
}

TEST_F(PasswordFileCliTest, FileThatIsADirectoryIsRefused) {
    const std::string directory = ::testing::TempDir();
    expect_refused({"read", "--table", "t"}, {"ROWPUMP_MYSQL_PASSWORD_FILE", "directory"}, {},
                   {{"ROWPUMP_MYSQL_URL", mysql_url_for_command_line()},
                    {"ROWPUMP_MYSQL_PASSWORD", std::nullopt},
                    {"ROWPUMP_MYSQL_PASSWORD_FILE", directory}});
}

// ------------------------------------------------------------------------------- tables and files

class BadInputCliTest : public MySqlTest {};

TEST_F(BadInputCliTest, TableNameWithAnEmojiIsNotFound) {
    expect_refused({"read", "--table", "rp_test_no\xF0\x9F\x98\x80"}, {"not found", "U+FFFF"}, {"collations"});
    expect_refused({"read", "--table", options().database + ".rp_test_\xF0\x9F\x98\x80"}, {"not found"},
                   {"collations"});
    // A queue table is a table too.
    const std::string queue = "rp_test_q\xF0\x9F\x98\x80";
    expect_refused({"queue", "stats", "--source", mysql_url_for_command_line(), "--queue", queue},
                   {"U+FFFF", "--queue"}, {"collations"});
    const auto table = tables().create("emoji_source", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} VALUES (1)");
    expect_refused({"backfill", "--table", table, "--sink", mysql_url_for_command_line(), "--queue", queue},
                   {"U+FFFF"}, {"collations"});
}

TEST_F(BadInputCliTest, ExistingOutputFileIsRefusedUnlessOverwriteIsGiven) {
    const auto table = tables().create("overwrite", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} VALUES (1), (2)");
    const std::string file = temp_path("rows.ndjson");
    std::ofstream(file) << "precious\n";
    expect_refused({"backfill", "--table", table, "--sink", "file:" + file}, {file, "--overwrite"});
    EXPECT_EQ(slurp(file), "precious\n");

    // Ranges may finish in any order: compare the set of lines.
    const std::multiset<std::string> rows{"{\"id\":1}", "{\"id\":2}"};
    CliProcess replace({"backfill", "--table", table, "--sink", "file:" + file, "--overwrite"});
    EXPECT_EQ(replace.wait_for(60s), 0) << replace.describe();
    const auto replaced = lines(slurp(file));
    EXPECT_EQ(std::multiset<std::string>(replaced.begin(), replaced.end()), rows);
    std::remove(file.c_str());

    CliProcess fresh({"backfill", "--table", table, "--sink", "file:" + file});
    EXPECT_EQ(fresh.wait_for(60s), 0) << "a file that is not there yet needs no --overwrite\n" << fresh.describe();
    const auto written = lines(slurp(file));
    EXPECT_EQ(std::multiset<std::string>(written.begin(), written.end()), rows);
    std::remove(file.c_str());
}

TEST_F(BadInputCliTest, OverwriteWithASinkThatIsNotAFileIsRefused) {
    const auto table = tables().create("overwrite_queue", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} VALUES (1)");
    expect_refused({"backfill", "--table", table, "--sink", "stdout", "--overwrite"}, {"--overwrite", "stdout"});
}

// -------------------------------------------------------------------------------------------- Redis

class RedisBadInputCliTest : public RedisTest {};

TEST_F(RedisBadInputCliTest, DatabaseOutOfRangeIsOneLine) {
    const RedisOptions options = RedisOptions::from_url(url());
    const std::string url_99 = "redis://" + options.host + ":" + std::to_string(options.port) + "/99";
    expect_refused({"queue", "stats", "--source", url_99, "--queue", queue()}, {"no database 99", "0-15"}, {"ERR"});
}

// The range comes from the server; a server that refuses CONFIG still gets a plain sentence.
TEST(RedisDatabaseRangeCliTest, RangeIsTheServersOwnOrSaidInPlainWords) {
    {
        PrivateRedisServer four_databases({"--databases", "4"});
        const std::string url = "redis://127.0.0.1:" + std::to_string(four_databases.port()) + "/4";
        expect_refused({"queue", "stats", "--source", url, "--queue", "rp_test:range"}, {"no database 4", "0-3"},
                       {"ERR"});
    }
    {
        PrivateRedisServer no_config({"--user", "default", "on", "nopass", "~*", "&*", "+@all", "-config"});
        const std::string url = "redis://127.0.0.1:" + std::to_string(no_config.port()) + "/40";
        expect_refused({"queue", "stats", "--source", url, "--queue", "rp_test:range"},
                       {"no database 40", "out of range"}, {"ERR", "NOPERM"});
    }
}

TEST_F(RedisBadInputCliTest, KeysOfTheWrongTypeAreOneLineForStatsAndConsume) {
    redis().command({"SET", queue(), "not a list"});
    expect_refused({"queue", "stats", "--source", url(), "--queue", queue()},
                   {"key " + queue() + " is a string, expected a list"}, {"WRONGTYPE"});
    expect_refused({"queue", "consume", "--source", url(), "--queue", queue(), "--exec", "true", "--until-empty"},
                   {"key " + queue() + " is a string, expected a list"}, {"WRONGTYPE"});
    redis().command({"DEL", queue()});
    redis().command({"RPUSH", queue() + ":delayed", "x"});
    expect_refused({"queue", "stats", "--source", url(), "--queue", queue()},
                   {"key " + queue() + ":delayed is a list, expected a sorted set (zset)"}, {"WRONGTYPE"});
}

// A task whose command fails is named by a fingerprint and its size; its payload shows only with -v.
TEST_F(RedisBadInputCliTest, FailureLinesOfAConsumerShowNoPayloadUnlessVerbose) {
    const std::string payload = "{\"card\":\"rp-private-4111-1111\"}";
    for (const bool verbose : {false, true}) {
        redis().command({"RPUSH", queue(), payload});
        std::vector<std::string> args{"queue", "consume", "--source", url(), "--queue", queue(),
                                      "--exec", "cat > /dev/null; exit 3", "--max-attempts", "1", "--until-empty"};
        if (verbose) args.insert(args.begin(), "-v");
        CliProcess consumer(args);
        EXPECT_EQ(consumer.wait_for(60s), 4) << "drained, the task dead\n" << consumer.describe();
        const std::string err = consumer.err();
        EXPECT_NE(err.find("(" + std::to_string(payload.size()) + " bytes) failed"), std::string::npos)
            << consumer.describe();
        EXPECT_NE(err.find("now dead"), std::string::npos) << consumer.describe();
        if (verbose) EXPECT_NE(err.find(payload), std::string::npos) << "-v shows the payload\n" << consumer.describe();
        else EXPECT_EQ(err.find("rp-private"), std::string::npos) << consumer.describe();
        redis().command({"DEL", queue() + ":dead"});
    }
}

}  // namespace
}  // namespace rowpump::test
