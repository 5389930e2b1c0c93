// `rowpump read` given bad input: the built CLI must exit with the documented code (2 for bad usage or
// input, 1 for other failures), print one clear error line on stderr and nothing on stdout, and never
// show a password. Good input with awkward names must still read correctly.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"

extern char** environ;

namespace rowpump::test {
namespace {

struct CliResult {
    bool exited = false;  // false: killed by a signal (a crash)
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string temp_file(const char* name) {
    std::string path = ::testing::TempDir() + "rowpump_cli_" + name + "_XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd >= 0) ::close(fd);
    return path;
}

// Runs the built CLI with `args`. `env` overrides the inherited environment: a value sets the variable,
// nullopt removes it.
CliResult run_cli(const std::vector<std::string>& args,
                  const std::map<std::string, std::optional<std::string>>& env = {}) {
    const std::string out_path = temp_file("out");
    const std::string err_path = temp_file("err");

    std::vector<std::string> environment;
    for (char** entry = environ; *entry; ++entry) {
        const std::string variable(*entry);
        if (!env.count(variable.substr(0, variable.find('=')))) environment.push_back(variable);
    }
    for (const auto& [name, value] : env)
        if (value) environment.push_back(name + "=" + *value);

    std::vector<std::string> argv_text{ROWPUMP_CLI_PATH};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& variable : environment) envp.push_back(variable.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_TRUNC, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);

    CliResult result;
    if (spawned != 0) {
        ADD_FAILURE() << "cannot run " << ROWPUMP_CLI_PATH << ": error " << spawned;
    } else {
        int status = 0;
        ::waitpid(pid, &status, 0);
        result.exited = WIFEXITED(status);
        result.exit_code = result.exited ? WEXITSTATUS(status) : -WTERMSIG(status);
    }
    result.out = slurp(out_path);
    result.err = slurp(err_path);
    std::remove(out_path.c_str());
    std::remove(err_path.c_str());
    return result;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::string describe(const CliResult& result) {
    return "exit " + std::to_string(result.exit_code) + "\n--- stdout ---\n" + result.out.substr(0, 2000) +
           "\n--- stderr ---\n" + result.err.substr(0, 2000);
}

// The run failed the way bad input must: the exit code, nothing on stdout, one error line naming `needle`.
void expect_one_error_line(const CliResult& result, int exit_code, const std::string& needle) {
    EXPECT_TRUE(result.exited) << describe(result);
    EXPECT_EQ(result.exit_code, exit_code) << describe(result);
    EXPECT_EQ(result.out, "") << describe(result);
    const auto err = lines(result.err);
    ASSERT_EQ(err.size(), 1u) << describe(result);
    EXPECT_EQ(err[0].rfind("rowpump: error: ", 0), 0u) << describe(result);
    EXPECT_NE(err[0].find(needle), std::string::npos) << "the error should mention '" << needle << "'\n"
                                                      << describe(result);
}

std::string url_with_password(const MySqlOptions& options, const std::string& password) {
    return "mysql://" + options.user + ":" + password + "@" + options.host + ":" + std::to_string(options.port) + "/" +
           options.database;
}

class ReadCliTest : public MySqlTest {
protected:
    std::string small_table() {
        const auto table = tables().create("cli_small", "(id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2), "
                                                        "at DATETIME(3), data VARBINARY(4), note VARCHAR(10) NULL)");
        tables().execute(table, "INSERT INTO {t} VALUES (1, 'alpha', 1.50, '2024-05-01 12:00:00.250', X'00FF', NULL), "
                                "(2, 'b,\"q\"', -0.05, '1999-12-31 23:59:59', X'', '')");
        return table;
    }
};

TEST_F(ReadCliTest, JsonOutputOfASmallTable) {
    const auto table = small_table();
    const auto result = run_cli({"read", "--table", table});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.out,
              "{\"id\":1,\"name\":\"alpha\",\"price\":1.50,\"at\":\"2024-05-01T12:00:00.250\",\"data\":\"AP8=\","
              "\"note\":null}\n"
              "{\"id\":2,\"name\":\"b,\\\"q\\\"\",\"price\":-0.05,\"at\":\"1999-12-31T23:59:59.000\",\"data\":\"\","
              "\"note\":\"\"}\n");
}

TEST_F(ReadCliTest, CsvOutputOfASmallTable) {
    const auto table = small_table();
    const auto result = run_cli({"read", "--table", table, "--format", "csv"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.out,
              "id,name,price,at,data,note\n"
              "1,alpha,1.50,2024-05-01 12:00:00.250,AP8=,\n"
              "2,\"b,\"\"q\"\"\",-0.05,1999-12-31 23:59:59.000,\"\",\"\"\n");
}

TEST_F(ReadCliTest, LimitStopsAfterThatManyRowsAcrossPages) {
    const auto table = tables().create("cli_limit", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_50");
    const auto result = run_cli({"read", "--table", table, "--page-size", "7", "--limit", "17", "--strategy", "id-in"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    const auto out = lines(result.out);
    ASSERT_EQ(out.size(), 17u) << describe(result);
    EXPECT_EQ(out.front(), "{\"id\":1}");
    EXPECT_EQ(out.back(), "{\"id\":17}");
}

TEST_F(ReadCliTest, UnknownTableExits2) {
    const std::string table = "rp_test_no_such_table_" + std::to_string(::getpid());
    expect_one_error_line(run_cli({"read", "--table", table}), 2, table);
}

TEST_F(ReadCliTest, UnknownColumnInColumnsExits2) {
    const auto table = small_table();
    expect_one_error_line(run_cli({"read", "--table", table, "--columns", "id,no_such_column"}), 2, "no_such_column");
}

TEST_F(ReadCliTest, UnknownColumnInKeyExits2) {
    const auto table = small_table();
    expect_one_error_line(run_cli({"read", "--table", table, "--key", "no_such_key"}), 2, "no_such_key");
}

TEST_F(ReadCliTest, KeyThatCannotBeMadeUniqueExits2) {
    const auto table = tables().create("cli_no_pk", "(a INT NOT NULL, b INT NOT NULL, UNIQUE KEY uk_b (b))");
    tables().execute(table, "INSERT INTO {t} VALUES (1, 1), (1, 2)");
    expect_one_error_line(run_cli({"read", "--table", table, "--key", "a"}), 2, "not unique");
}

TEST_F(ReadCliTest, TableWithoutAnyUsableKeyExits2) {
    const auto table = tables().create("cli_heap", "(a INT, b INT)");
    expect_one_error_line(run_cli({"read", "--table", table}), 2, "no primary key");
}

TEST_F(ReadCliTest, NullKeysAreRefusedWithTheirCountAndWhatToDo) {
    const auto table = tables().create("cli_nulls", "(id INT PRIMARY KEY, email VARCHAR(40) NULL UNIQUE)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 4 = 0, NULL, CONCAT('u', seq)) FROM seq_1_to_10");
    const auto refused = run_cli({"read", "--table", table, "--key", "email"});
    expect_one_error_line(refused, 2, "2 rows");
    EXPECT_NE(refused.err.find("--null-keys first"), std::string::npos) << describe(refused);

    const auto read = run_cli({"read", "--table", table, "--key", "email", "--null-keys", "first"});
    ASSERT_EQ(read.exit_code, 0) << describe(read);
    const auto out = lines(read.out);
    ASSERT_EQ(out.size(), 10u) << describe(read);
    EXPECT_EQ(out[0], "{\"id\":4,\"email\":null}");
    EXPECT_EQ(out[1], "{\"id\":8,\"email\":null}");
    EXPECT_EQ(out[2], "{\"id\":1,\"email\":\"u1\"}");
    EXPECT_EQ(out[3], "{\"id\":10,\"email\":\"u10\"}");
}

TEST_F(ReadCliTest, WhereWithASyntaxErrorExits2AndWritesNothing) {
    const auto table = small_table();
    expect_one_error_line(run_cli({"read", "--table", table, "--where", "id >"}), 2, "--where");
}

// The filter stays inside the parentheses rowpump puts around it: with "id<3) OR (1=1" the statement
// would OR past the key bounds and print ids 1 and 2 over and over.
TEST_F(ReadCliTest, WhereThatLeavesItsParenthesesExits2) {
    const auto table = small_table();
    expect_one_error_line(run_cli({"read", "--table", table, "--where", "id<3) OR (1=1"}), 2,
                          "--where: unbalanced ')' at character 5");
    expect_one_error_line(run_cli({"read", "--table", table, "--where", "1=1) -- "}), 2,
                          "--where: unbalanced ')' at character 4");
    expect_one_error_line(run_cli({"read", "--table", table, "--where", "id = 1; SELECT 1"}), 2, "--where: ';'");
    expect_one_error_line(run_cli({"read", "--table", table, "--where", "id > ?"}), 2, "--where: '?'");
    const auto nested = run_cli({"read", "--table", table, "--where", "(id = 1 OR name = ')') AND (price > 0)"});
    ASSERT_EQ(nested.exit_code, 0) << describe(nested);
    EXPECT_EQ(lines(nested.out).size(), 1u) << describe(nested);
}

TEST_F(ReadCliTest, LimitMustBeAPositiveWholeNumber) {
    const auto table = small_table();
    expect_one_error_line(run_cli({"read", "--table", table, "--limit", "0"}), 2,
                          "--limit: expected a whole number of at least 1, got '0'");
    expect_one_error_line(run_cli({"read", "--table", table, "--limit", "-1"}), 2, "--limit");
    expect_one_error_line(run_cli({"read", "--table", table, "--page-size", "-1"}), 2, "--page-size");
}

TEST_F(ReadCliTest, WrongPasswordExits2WithoutShowingThePassword) {
    const std::string password = "Wr0ng-S3cret-pw";
    const auto result = run_cli({"read", "--mysql", url_with_password(options(), password), "--table", "anything"},
                                {{"ROWPUMP_MYSQL_PASSWORD", std::nullopt}, {"ROWPUMP_MYSQL_URL", std::nullopt}});
    expect_one_error_line(result, 2, "denied");
    EXPECT_EQ(result.out.find(password), std::string::npos);
    EXPECT_EQ(result.err.find(password), std::string::npos) << describe(result);
}

TEST_F(ReadCliTest, WeirdTableAndColumnNamesReadCorrectly) {
    const auto table = tables().create("we`ird tåble", "(id INT PRIMARY KEY, `na me` VARCHAR(10), `c``q` INT, "
                                                       "`ü` VARCHAR(10), UNIQUE KEY `u n``i` (`na me`))");
    tables().execute(table, "INSERT INTO {t} VALUES (1, 'x', 2, 'é'), (2, 'a b', NULL, '😀')");
    const auto all = run_cli({"read", "--table", table});
    ASSERT_EQ(all.exit_code, 0) << describe(all);
    EXPECT_EQ(all.out, "{\"id\":1,\"na me\":\"x\",\"c`q\":2,\"ü\":\"é\"}\n"
                       "{\"id\":2,\"na me\":\"a b\",\"c`q\":null,\"ü\":\"😀\"}\n");

    const auto keyed = run_cli({"read", "--table", table, "--key", "na me", "--columns", "ü,c`q", "--strategy",
                                "deferred-join", "--format", "csv"});
    ASSERT_EQ(keyed.exit_code, 0) << describe(keyed);
    EXPECT_EQ(keyed.out, "ü,c`q\n😀,\né,2\n");
}

TEST_F(ReadCliTest, TableInTheSchemaNamedExplicitly) {
    const auto table = small_table();
    const auto result = run_cli({"read", "--table", options().database + "." + table, "--columns", "id"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.out, "{\"id\":1}\n{\"id\":2}\n");
}

// No server needed below: the CLI must fail cleanly before or at connecting.

TEST(ReadCliWithoutServerTest, ServerDownExits1WithOneClearLine) {
    const auto result = run_cli({"read", "--mysql", "mysql://rowpump:pw-down-42@127.0.0.1:1/rowpump", "--table", "t"},
                                {{"ROWPUMP_MYSQL_PASSWORD", std::nullopt}});
    expect_one_error_line(result, 1, "127.0.0.1:1");
    EXPECT_NE(result.err.find("connect"), std::string::npos) << describe(result);
    EXPECT_EQ(result.err.find("pw-down-42"), std::string::npos) << describe(result);
}

TEST(ReadCliWithoutServerTest, MalformedUrlExits2) {
    expect_one_error_line(run_cli({"read", "--mysql", "mysql:/rowpump@127.0.0.1/rowpump", "--table", "t"}), 2, "URL");
    const auto bad_port = run_cli({"read", "--mysql", "mysql://rowpump:pw-port-42@127.0.0.1:port/db", "--table", "t"});
    expect_one_error_line(bad_port, 2, "port");
    EXPECT_EQ(bad_port.err.find("pw-port-42"), std::string::npos) << describe(bad_port);
    expect_one_error_line(run_cli({"read", "--mysql", "postgres://u@127.0.0.1/db", "--table", "t"}), 2, "scheme");
}

TEST(ReadCliWithoutServerTest, NoConnectionGivenExits2) {
    expect_one_error_line(run_cli({"read", "--table", "t"}, {{"ROWPUMP_MYSQL_URL", std::nullopt}}), 2,
                          "ROWPUMP_MYSQL_URL");
}

TEST(ReadCliWithoutServerTest, HelpExits0AndShowsExamples) {
    const auto result = run_cli({"--help"});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.out.find("read"), std::string::npos) << describe(result);
    EXPECT_NE(result.out.find("Example"), std::string::npos) << "rowpump --help shows no example\n" << describe(result);
}

TEST(ReadCliWithoutServerTest, ReadHelpExits0AndShowsExamples) {
    const auto result = run_cli({"read", "--help"});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.out.find("Examples"), std::string::npos) << describe(result);
    EXPECT_NE(result.out.find("rowpump read --table"), std::string::npos) << describe(result);
    EXPECT_NE(result.out.find("--strategy"), std::string::npos) << describe(result);
}

}  // namespace
}  // namespace rowpump::test
