#pragma once
// Tests against the local MariaDB that scripts/services.sh starts. Every table a test creates is named
// rp_test_<base>_<pid> (parallel ctest processes never collide) and is dropped when its owner goes.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mysql/connection.hpp"
#include "rowpump/key.hpp"
#include "rowpump/options.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::test {

// One cell as text, NULL as nullopt; binary values are written as uppercase hex so they print readably.
using Value = std::optional<std::string>;
using Row = std::vector<Value>;

// ROWPUMP_MYSQL_URL, parsed; nullopt when the variable is unset or empty.
std::optional<MySqlOptions> mysql_options_from_env();
// ROWPUMP_MYSQL_URL without its password, for a rowpump child process's command line. The password
// reaches the child through ROWPUMP_MYSQL_PASSWORD, set here in the environment it inherits, so it never
// shows in a process list.
std::string mysql_url_for_command_line();
// What to tell the developer when ROWPUMP_MYSQL_URL is missing.
extern const char* const start_services_hint;

std::string hex(std::string_view bytes);

// Owns the test tables and a connection for setting them up and for reference queries.
class TestTables {
public:
    explicit TestTables(const MySqlOptions& options);
    ~TestTables();
    TestTables(const TestTables&) = delete;
    TestTables& operator=(const TestTables&) = delete;

    // Creates the table rp_test_<base>_<pid> from `definition` (what follows the name in CREATE TABLE)
    // and returns its unquoted name. A leftover of an earlier run with the same pid is dropped first.
    std::string create(const std::string& base, const std::string& definition);
    // Runs `sql` after replacing every "{t}" by the quoted name of `table`.
    void execute(const std::string& table, const std::string& sql);
    // The rows of a query, each column read as text. Pass text expressions (see text_select_list).
    std::vector<Row> rows(const std::string& sql, const std::vector<mysql::Param>& params = {});
    // `columns` of `table` as server-side text expressions matching what read_all() returns:
    // HEX() for binary types, the exact CAST(... AS CHAR) text otherwise.
    std::string text_select_list(const std::string& table, const std::vector<std::string>& columns);
    // Whether each column of `table` holds bytes (BINARY, VARBINARY, BLOB), from information_schema.
    std::map<std::string, bool> binary_columns(const std::string& table);
    std::uint64_t count(const std::string& table);

    mysql::Connection& connection() { return connection_; }

private:
    mysql::Connection connection_;
    std::vector<std::string> created_;
};

// A table a fixture's tests read, created and filled before each test.
struct SourceTable {
    std::string base;        // of its name: rp_test_<base>_<pid>
    std::string definition;  // what follows the name in CREATE TABLE
    std::string rows_sql;    // what fills it ("": nothing); {t} is the table
};

// An empty MySQL queue table of the producer's own DDL (mysql::queue_table_ddl), named after the current
// test: rp_test_q_<test>_<pid>, at most 40 characters before the pid.
SourceTable queue_table_of_this_test();

// `rows` rows to read back and compare: id 1..rows and v, the SHA-1 of the id in hex (40 characters, so
// a page has some weight). `v_type`: the column's type.
SourceTable sha1_rows_table(const std::string& base, int rows, const std::string& v_type = "VARCHAR(40)");

// A test with a live server: fails (never skips) when ROWPUMP_MYSQL_URL is not set.
class MySqlTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // The fixture's source table, which SetUp creates as table_; none by default.
    virtual std::optional<SourceTable> source_table() const { return std::nullopt; }

    TestTables& tables() { return *tables_; }
    const MySqlOptions& options() const { return options_; }

    MySqlOptions options_;
    std::unique_ptr<TestTables> tables_;
    // For a rowpump child process's --mysql: mysql_url_for_command_line().
    std::string mysql_url_;
    std::string table_;  // source_table()'s name
};

// Every row a reader delivers, in order, with the plan's columns only (binary columns as hex). Reading
// stops with a test failure after `max_rows`, and the second form also after `read_timeout`, so a
// reader that loops cannot hang the suite.
constexpr std::size_t unlimited_rows = 10'000'000;
constexpr std::chrono::seconds read_timeout{20};
std::vector<Row> read_all(PageReader& reader, const ReadPlan& plan, const std::map<std::string, bool>& binary,
                          std::size_t max_rows = unlimited_rows);
std::vector<Row> read_all(const MySqlOptions& options, const std::shared_ptr<const ReadPlan>& plan,
                          const std::map<std::string, bool>& binary, KeyRange range = {},
                          std::size_t max_rows = unlimited_rows);

// For failure messages: the first row where two results differ, or their sizes.
std::string first_difference(const std::vector<Row>& actual, const std::vector<Row>& expected);

}  // namespace rowpump::test
