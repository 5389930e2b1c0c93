// `rowpump read` given bad input: the built CLI must exit with the documented code (2 for bad usage or
// input, 1 for other failures), print one clear error line on stderr and nothing on stdout, and never
// show a password. Good input with awkward names must still read correctly.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"

namespace rowpump::test {
namespace {

// The run failed the way bad input must: the exit code, nothing on stdout, one error line naming `needle`
// (and after it, when a password was on the command line, the warning that says so).
void expect_one_error_line(const CliRun& result, int exit_code, const std::string& needle) {
    EXPECT_GE(result.exit_code, 0) << "killed by a signal\n" << result.describe();
    EXPECT_EQ(result.exit_code, exit_code) << result.describe();
    EXPECT_EQ(result.out, "") << result.describe();
    auto err = lines(result.err);
    if (err.size() == 2 && err[1].find("warning: a password was given on the command line") != std::string::npos)
        err.pop_back();
    ASSERT_EQ(err.size(), 1u) << result.describe();
    EXPECT_EQ(err[0].rfind("rowpump: error: ", 0), 0u) << result.describe();
    EXPECT_NE(err[0].find(needle), std::string::npos) << "the error should mention '" << needle << "'\n"
                                                      << result.describe();
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
    const auto result = run_rowpump({"read", "--table", table});
    ASSERT_EQ(result.exit_code, 0) << result.describe();
    EXPECT_EQ(result.out,
              "{\"id\":1,\"name\":\"alpha\",\"price\":1.50,\"at\":\"2024-05-01T12:00:00.250\",\"data\":\"AP8=\","
              "\"note\":null}\n"
              "{\"id\":2,\"name\":\"b,\\\"q\\\"\",\"price\":-0.05,\"at\":\"1999-12-31T23:59:59.000\",\"data\":\"\","
              "\"note\":\"\"}\n");
}

TEST_F(ReadCliTest, CsvOutputOfASmallTable) {
    const auto table = small_table();
    const auto result = run_rowpump({"read", "--table", table, "--format", "csv"});
    ASSERT_EQ(result.exit_code, 0) << result.describe();
    EXPECT_EQ(result.out,
              "id,name,price,at,data,note\n"
              "1,alpha,1.50,2024-05-01 12:00:00.250,AP8=,\n"
              "2,\"b,\"\"q\"\"\",-0.05,1999-12-31 23:59:59.000,\"\",\"\"\n");
}

TEST_F(ReadCliTest, LimitStopsAfterThatManyRowsAcrossPages) {
    const auto table = tables().create("cli_limit", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_50");
    const auto result = run_rowpump({"read", "--table", table, "--page-size", "7", "--limit", "17", "--strategy", "id-in"});
    ASSERT_EQ(result.exit_code, 0) << result.describe();
    const auto out = lines(result.out);
    ASSERT_EQ(out.size(), 17u) << result.describe();
    EXPECT_EQ(out.front(), "{\"id\":1}");
    EXPECT_EQ(out.back(), "{\"id\":17}");
}

TEST_F(ReadCliTest, UnknownTableExits2) {
    const std::string table = "rp_test_no_such_table_" + std::to_string(::getpid());
    expect_one_error_line(run_rowpump({"read", "--table", table}), 2, table);
}

TEST_F(ReadCliTest, UnknownColumnInColumnsExits2) {
    const auto table = small_table();
    expect_one_error_line(run_rowpump({"read", "--table", table, "--columns", "id,no_such_column"}), 2, "no_such_column");
}

TEST_F(ReadCliTest, UnknownColumnInKeyExits2) {
    const auto table = small_table();
    expect_one_error_line(run_rowpump({"read", "--table", table, "--key", "no_such_key"}), 2, "no_such_key");
}

TEST_F(ReadCliTest, KeyThatCannotBeMadeUniqueExits2) {
    const auto table = tables().create("cli_no_pk", "(a INT NOT NULL, b INT NOT NULL, UNIQUE KEY uk_b (b))");
    tables().execute(table, "INSERT INTO {t} VALUES (1, 1), (1, 2)");
    expect_one_error_line(run_rowpump({"read", "--table", table, "--key", "a"}), 2, "not unique");
}

TEST_F(ReadCliTest, TableWithoutAnyUsableKeyExits2) {
    const auto table = tables().create("cli_heap", "(a INT, b INT)");
    expect_one_error_line(run_rowpump({"read", "--table", table}), 2, "no primary key");
}

TEST_F(ReadCliTest, NullKeysAreRefusedWithTheirCountAndWhatToDo) {
    const auto table = tables().create("cli_nulls", "(id INT PRIMARY KEY, email VARCHAR(40) NULL UNIQUE)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, IF(seq % 4 = 0, NULL, CONCAT('u', seq)) FROM seq_1_to_10");
    const auto refused = run_rowpump({"read", "--table", table, "--key", "email"});
    expect_one_error_line(refused, 2, "2 rows");
    EXPECT_NE(refused.err.find("--null-keys first"), std::string::npos) << refused.describe();

    const auto read = run_rowpump({"read", "--table", table, "--key", "email", "--null-keys", "first"});
    ASSERT_EQ(read.exit_code, 0) << read.describe();
    const auto out = lines(read.out);
    ASSERT_EQ(out.size(), 10u) << read.describe();
    EXPECT_EQ(out[0], "{\"id\":4,\"email\":null}");
    EXPECT_EQ(out[1], "{\"id\":8,\"email\":null}");
    EXPECT_EQ(out[2], "{\"id\":1,\"email\":\"u1\"}");
    EXPECT_EQ(out[3], "{\"id\":10,\"email\":\"u10\"}");
}

TEST_F(ReadCliTest, WhereWithASyntaxErrorExits2AndWritesNothing) {
    const auto table = small_table();
    expect_one_error_line(run_rowpump({"read", "--table", table, "--where", "id >"}), 2, "--where");
}

// The filter stays inside the parentheses rowpump puts around it: with "id<3) OR (1=1" the statement
// would OR past the key bounds and print ids 1 and 2 over and over.
TEST_F(ReadCliTest, WhereThatLeavesItsParenthesesExits2) {
    const auto table = small_table();
    expect_one_error_line(run_rowpump({"read", "--table", table, "--where", "id<3) OR (1=1"}), 2,
                          "--where: unbalanced ')' at character 5");
    expect_one_error_line(run_rowpump({"read", "--table", table, "--where", "1=1) -- "}), 2,
                          "--where: unbalanced ')' at character 4");
    expect_one_error_line(run_rowpump({"read", "--table", table, "--where", "id = 1; SELECT 1"}), 2, "--where: ';'");
    expect_one_error_line(run_rowpump({"read", "--table", table, "--where", "id > ?"}), 2, "--where: '?'");
    const auto nested = run_rowpump({"read", "--table", table, "--where", "(id = 1 OR name = ')') AND (price > 0)"});
    ASSERT_EQ(nested.exit_code, 0) << nested.describe();
    EXPECT_EQ(lines(nested.out).size(), 1u) << nested.describe();
}

TEST_F(ReadCliTest, LimitMustBeAPositiveWholeNumber) {
    const auto table = small_table();
    expect_one_error_line(run_rowpump({"read", "--table", table, "--limit", "0"}), 2,
                          "--limit: expected a whole number of at least 1, got '0'");
    expect_one_error_line(run_rowpump({"read", "--table", table, "--limit", "-1"}), 2, "--limit");
    expect_one_error_line(run_rowpump({"read", "--table", table, "--page-size", "-1"}), 2, "--page-size");
}

TEST_F(ReadCliTest, WrongPasswordExits2WithoutShowingThePassword) {
    const std::string password = "Wr0ng-S3cret-pw";
    const auto result = run_rowpump({"read", "--mysql", url_with_password(options(), password), "--table", "anything"},
                                {{"ROWPUMP_MYSQL_PASSWORD", std::nullopt}, {"ROWPUMP_MYSQL_URL", std::nullopt}});
    // The error line first, then the warning about a password on the command line.
    EXPECT_EQ(result.exit_code, 2) << result.describe();
    const auto err = lines(result.err);
    ASSERT_EQ(err.size(), 2u) << result.describe();
    EXPECT_EQ(err[0].rfind("rowpump: error: ", 0), 0u) << result.describe();
    EXPECT_NE(err[0].find("denied"), std::string::npos) << result.describe();
    EXPECT_NE(err[1].find("warning: a password was given on the command line"), std::string::npos)
        << result.describe();
    EXPECT_EQ(result.out.find(password), std::string::npos);
    EXPECT_EQ(result.err.find(password), std::string::npos) << result.describe();
}

TEST_F(ReadCliTest, WeirdTableAndColumnNamesReadCorrectly) {
    const auto table = tables().create("we`ird tåble", "(id INT PRIMARY KEY, `na me` VARCHAR(10), `c``q` INT, "
                                                       "`ü` VARCHAR(10), UNIQUE KEY `u n``i` (`na me`))");
    tables().execute(table, "INSERT INTO {t} VALUES (1, 'x', 2, 'é'), (2, 'a b', NULL, '😀')");
    const auto all = run_rowpump({"read", "--table", table});
    ASSERT_EQ(all.exit_code, 0) << all.describe();
    EXPECT_EQ(all.out, "{\"id\":1,\"na me\":\"x\",\"c`q\":2,\"ü\":\"é\"}\n"
                       "{\"id\":2,\"na me\":\"a b\",\"c`q\":null,\"ü\":\"😀\"}\n");

    const auto keyed = run_rowpump({"read", "--table", table, "--key", "na me", "--columns", "ü,c`q", "--strategy",
                                "deferred-join", "--format", "csv"});
    ASSERT_EQ(keyed.exit_code, 0) << keyed.describe();
    EXPECT_EQ(keyed.out, "ü,c`q\n😀,\né,2\n");
}

TEST_F(ReadCliTest, TableInTheSchemaNamedExplicitly) {
    const auto table = small_table();
    const auto result = run_rowpump({"read", "--table", options().database + "." + table, "--columns", "id"});
    ASSERT_EQ(result.exit_code, 0) << result.describe();
    EXPECT_EQ(result.out, "{\"id\":1}\n{\"id\":2}\n");
}

// No server needed below: the CLI must fail cleanly before or at connecting.

TEST(ReadCliWithoutServerTest, ServerDownExits1WithOneClearLine) {
    const auto result = run_rowpump({"read", "--mysql", "mysql://rowpump:pw-down-42@127.0.0.1:1/rowpump", "--table", "t"},
                                {{"ROWPUMP_MYSQL_PASSWORD", std::nullopt}});
    expect_one_error_line(result, 1, "127.0.0.1:1");
    EXPECT_NE(result.err.find("connect"), std::string::npos) << result.describe();
    EXPECT_EQ(result.err.find("pw-down-42"), std::string::npos) << result.describe();
}

TEST(ReadCliWithoutServerTest, MalformedUrlExits2) {
    expect_one_error_line(run_rowpump({"read", "--mysql", "mysql:/rowpump@127.0.0.1/rowpump", "--table", "t"}), 2, "URL");
    const auto bad_port = run_rowpump({"read", "--mysql", "mysql://rowpump:pw-port-42@127.0.0.1:port/db", "--table", "t"});
    expect_one_error_line(bad_port, 2, "port");
    EXPECT_EQ(bad_port.err.find("pw-port-42"), std::string::npos) << bad_port.describe();
    expect_one_error_line(run_rowpump({"read", "--mysql", "postgres://u@127.0.0.1/db", "--table", "t"}), 2, "scheme");
}

// An argument far longer than the stack allows recursion over: the password scan of argv used to overflow
// the stack (SIGSEGV) on a run of some 28,000 characters without a space. One argument may hold 128 KiB.
TEST_F(ReadCliTest, AWhereOf20000ValuesRuns) {
    const auto table = tables().create("cli_long_where", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_30000");
    std::string in_list = "id IN (";
    for (int id = 2; id <= 40000; id += 2) in_list += std::to_string(id) + ",";
    in_list.back() = ')';
    ASSERT_GT(in_list.size(), 100'000u);
    const auto result = run_rowpump({"read", "--table", table, "--where", in_list, "--format", "csv"});
    ASSERT_EQ(result.exit_code, 0) << result.describe().substr(0, 3000);
    EXPECT_EQ(lines(result.out).size(), 1u + 15000u);  // the header, then the even ids up to 30000
}

// A job file takes what one argument cannot: a 1 MB condition with a 100,000-value IN list.
TEST_F(ReadCliTest, AJobWithAOneMegabyteWhereRuns) {
    const auto table = tables().create("cli_huge_where", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_1000");
    std::string where = "id IN (";
    for (int id = 1; id <= 100000; ++id) where += std::to_string(id * 3) + ",";
    where.back() = ')';
    where += " AND '" + std::string(1'000'000 - where.size(), 'x') + "' <> ''";
    ASSERT_GE(where.size(), 1'000'000u);
    const std::string out_path = temp_file("huge_where_out");
    const std::string job_path = temp_file("huge_where_job");
    std::ofstream(job_path) << "source:\n  mysql: ${ROWPUMP_MYSQL_URL}\n  table: " << table << "\n  where: \"" << where << "\"\nsink:\n  uri: file:"
                            << out_path << "\n  overwrite: true\n";
    const auto result = run_rowpump({"run", job_path, "-q"});
    EXPECT_EQ(result.exit_code, 0) << result.describe().substr(0, 3000);
    EXPECT_EQ(lines(slurp(out_path)).size(), 333u);  // 3, 6, ..., 999
    std::remove(out_path.c_str());
    std::remove(job_path.c_str());
}

// --csv-null '\N' writes what LOAD DATA reads back: NULLs, empty strings, backslashes, quotes, newlines
// and the word NULL come back as they were, checked by the server itself.
TEST_F(ReadCliTest, CsvWithBackslashNullsLoadsBackExactlyWithLoadData) {
    const auto table = tables().create("cli_csv_null", "(id INT PRIMARY KEY, note VARCHAR(40) NULL, n INT NULL)");
    tables().execute(table, "INSERT INTO {t} VALUES (1, NULL, NULL), (2, '', 0), (3, 'NULL', 3), (4, '\\\\N', 4), "
                            "(5, 'a\\\\b \\\"q\\\" ,c', NULL), (6, 'two\\nlines', 6), (7, ' padded ', 7)");
    const auto copy = tables().create("cli_csv_null_copy", "(id INT PRIMARY KEY, note VARCHAR(40) NULL, n INT NULL)");
    const auto result = run_rowpump({"read", "--table", table, "--format", "csv", "--csv-null", "\\N"});
    ASSERT_EQ(result.exit_code, 0) << result.describe();
    EXPECT_EQ(lines(result.out)[1], "1,\\N,\\N") << result.out;
    const std::string csv_path = temp_file("csv_null");
    std::ofstream(csv_path, std::ios::binary) << result.out;
    const std::string log_path = temp_file("csv_null_load");
    pid_t pid = 0;
    ASSERT_EQ(spawn_child({"/usr/bin/mariadb", "--no-defaults", "--local-infile=1", "--protocol=tcp",
                           "-h" + options().host, "-P" + std::to_string(options().port), "-u" + options().user,
                           options().database, "-e",
                           "LOAD DATA LOCAL INFILE '" + csv_path + "' INTO TABLE " + copy +
                               " FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' "
                               "LINES TERMINATED BY '\\n' IGNORE 1 LINES"},
                          {{"MYSQL_PWD", options().password}}, log_path, log_path, pid),
              0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(log_path);
    // Every row of one table has its twin, NULLs included (<=> is NULL-safe), and no row more.
    const auto same = tables().rows("SELECT CAST(COUNT(*) AS CHAR) FROM " + table + " a JOIN " + copy +
                                    " b ON a.id = b.id AND a.note <=> b.note AND a.n <=> b.n");
    ASSERT_EQ(same.size(), 1u);
    EXPECT_EQ(same[0][0].value_or("NULL"), "7");
    EXPECT_EQ(tables().count(copy), 7u);
    std::remove(csv_path.c_str());
    std::remove(log_path.c_str());
}

// MariaDB's JSON is LONGTEXT with a json_valid() check: --json-columns embed writes its values as JSON.
TEST_F(ReadCliTest, JsonColumnsEmbedWritesAMariaDbJsonColumnAsJson) {
    const auto table = tables().create("cli_json_col", "(id INT PRIMARY KEY, doc JSON NULL, plain LONGTEXT NULL)");
    tables().execute(table, "INSERT INTO {t} VALUES (1, '{\\n \"a\": [1, 2.50]\\n}', '[1]'), (2, NULL, NULL)");
    const auto embedded = run_rowpump({"read", "--table", table, "--json-columns", "embed"});
    ASSERT_EQ(embedded.exit_code, 0) << embedded.describe();
    EXPECT_EQ(embedded.out, "{\"id\":1,\"doc\":{\"a\":[1,2.50]},\"plain\":\"[1]\"}\n"
                            "{\"id\":2,\"doc\":null,\"plain\":null}\n");
    const auto as_text = run_rowpump({"read", "--table", table});
    ASSERT_EQ(as_text.exit_code, 0) << as_text.describe();
    EXPECT_EQ(lines(as_text.out)[0], "{\"id\":1,\"doc\":\"{\\n \\\"a\\\": [1, 2.50]\\n}\",\"plain\":\"[1]\"}");
}

TEST(ReadCliWithoutServerTest, NoConnectionGivenExits2) {
    expect_one_error_line(run_rowpump({"read", "--table", "t"}, {{"ROWPUMP_MYSQL_URL", std::nullopt}}), 2,
                          "ROWPUMP_MYSQL_URL");
}

TEST(ReadCliWithoutServerTest, HelpExits0AndShowsExamples) {
    const auto result = run_rowpump({"--help"});
    EXPECT_EQ(result.exit_code, 0) << result.describe();
    EXPECT_NE(result.out.find("read"), std::string::npos) << result.describe();
    EXPECT_NE(result.out.find("Example"), std::string::npos) << "rowpump --help shows no example\n" << result.describe();
}

TEST(ReadCliWithoutServerTest, ReadHelpExits0AndShowsExamples) {
    const auto result = run_rowpump({"read", "--help"});
    EXPECT_EQ(result.exit_code, 0) << result.describe();
    EXPECT_NE(result.out.find("Examples"), std::string::npos) << result.describe();
    EXPECT_NE(result.out.find("rowpump read --table"), std::string::npos) << result.describe();
    EXPECT_NE(result.out.find("--strategy"), std::string::npos) << result.describe();
}

}  // namespace
}  // namespace rowpump::test
