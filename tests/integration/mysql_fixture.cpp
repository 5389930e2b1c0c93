#include "integration/mysql_fixture.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <sstream>
#include <thread>

#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "rowpump/error.hpp"
#include "url.hpp"

namespace rowpump::test {

const char* const start_services_hint =
    "ROWPUMP_MYSQL_URL is not set: integration tests need the local MariaDB. Start it and export its address "
    "with:  bash scripts/services.sh start && eval \"$(bash scripts/services.sh env)\"";

std::optional<MySqlOptions> mysql_options_from_env() {
    const char* url = std::getenv("ROWPUMP_MYSQL_URL");
    if (!url || !*url) return std::nullopt;
    return MySqlOptions::from_url(url);
}

std::string mysql_url_for_command_line() {
    const char* url = std::getenv("ROWPUMP_MYSQL_URL");
    if (!url || !*url) return "";
    const std::string text(url);
    const auto authority = text.find("://");
    const auto at = text.find('@', authority == std::string::npos ? 0 : authority + 3);
    const auto colon = text.find(':', authority == std::string::npos ? 0 : authority + 3);
    if (authority == std::string::npos || at == std::string::npos || colon == std::string::npos || colon > at)
        return text;
    ::setenv("ROWPUMP_MYSQL_PASSWORD", percent_decode(text.substr(colon + 1, at - colon - 1)).c_str(), 1);
    return text.substr(0, colon) + text.substr(at);
}

std::string hex(std::string_view bytes) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char byte : bytes) {
        out += digits[byte >> 4];
        out += digits[byte & 15];
    }
    return out;
}

TestTables::TestTables(const MySqlOptions& options) : connection_(options) {}

TestTables::~TestTables() {
    for (const auto& table : created_) {
        try {
            connection_.execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(table));
        } catch (const std::exception& error) {
            ADD_FAILURE() << "cannot drop test table " << table << ": " << error.what();
        }
    }
}

std::string TestTables::create(const std::string& base, const std::string& definition) {
    const std::string name = "rp_test_" + base + "_" + std::to_string(::getpid());
    const std::string quoted = mysql::quote_identifier(name);
    connection_.execute_text("DROP TABLE IF EXISTS " + quoted);
    connection_.execute_text("CREATE TABLE " + quoted + " " + definition);
    created_.push_back(name);
    return name;
}

void TestTables::execute(const std::string& table, const std::string& sql) {
    const std::string quoted = mysql::quote_identifier(table);
    std::string text = sql;
    for (std::size_t at = 0; (at = text.find("{t}", at)) != std::string::npos; at += quoted.size())
        text.replace(at, 3, quoted);
    connection_.execute_text(text);
}

std::vector<Row> TestTables::rows(const std::string& sql, const std::vector<mysql::Param>& params) {
    auto result = connection_.query(sql, params);
    const auto width = result.column_count();
    std::vector<Row> out;
    while (result.next()) {
        Row row;
        for (std::size_t column = 1; column <= width; ++column) {
            if (result.is_null(column)) row.emplace_back(std::nullopt);
            else row.emplace_back(result.text(column));
        }
        out.push_back(std::move(row));
    }
    return out;
}

std::map<std::string, bool> TestTables::binary_columns(const std::string& table) {
    auto result = connection_.query(
        "SELECT COLUMN_NAME, DATA_TYPE IN ('binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob') "
        "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
        {table});
    std::map<std::string, bool> out;
    while (result.next()) out[result.text(1)] = result.int64(2) != 0;
    return out;
}

std::string TestTables::text_select_list(const std::string& table, const std::vector<std::string>& columns) {
    auto result = connection_.query(
        "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND "
        "TABLE_NAME = ?",
        {table});
    std::map<std::string, std::string> types;
    while (result.next()) types[result.text(1)] = result.text(2);
    const auto binary = binary_columns(table);
    std::string out;
    for (const auto& column : columns) {
        const std::string name = mysql::quote_identifier(column);
        std::string expression = "CAST(" + name + " AS CHAR)";
        if (binary.at(column)) expression = "HEX(" + name + ")";
        else if (types.at(column) == "bit") expression = "CAST(CAST(" + name + " AS UNSIGNED) AS CHAR)";
        out += (out.empty() ? "" : ", ") + expression;
    }
    return out;
}

std::uint64_t TestTables::count(const std::string& table) {
    auto result = connection_.query("SELECT COUNT(*) FROM " + mysql::quote_identifier(table));
    result.next();
    return result.uint64(1);
}

SourceTable queue_table_of_this_test() {
    std::string base = std::string("q_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(base.begin(), base.end(), '/', '_');
    // The producer's DDL minus "CREATE TABLE IF NOT EXISTS `name`": the fixture owns the name.
    const std::string ddl = mysql::queue_table_ddl("x");
    return {base.substr(0, 40), ddl.substr(ddl.find(" (")), ""};
}

SourceTable sha1_rows_table(const std::string& base, int rows, const std::string& v_type) {
    return {base, "(id BIGINT PRIMARY KEY, v " + v_type + ")",
            "INSERT INTO {t} SELECT seq, SHA1(seq) FROM seq_1_to_" + std::to_string(rows)};
}

void MySqlTest::SetUp() {
    auto options = mysql_options_from_env();
    if (!options) FAIL() << start_services_hint;
    options_ = *options;
    mysql_url_ = mysql_url_for_command_line();
    try {
        tables_ = std::make_unique<TestTables>(options_);
    } catch (const Error& error) {
        FAIL() << "cannot connect to " << options_.redacted() << " (" << error.what()
               << "): is the local MariaDB running? Run: bash scripts/services.sh start";
    }
    if (const auto source = source_table()) {
        table_ = tables_->create(source->base, source->definition);
        if (!source->rows_sql.empty()) tables_->execute(table_, source->rows_sql);
    }
}

void MySqlTest::TearDown() { tables_.reset(); }

namespace {

// What a reader delivered; filled without gtest assertions so it can run on a thread that may outlive
// its test (see read_all below).
struct Collected {
    std::vector<Row> rows;
    std::string problem;  // empty when the reader finished normally
};

Collected collect(PageReader& reader, const ReadPlan& plan, const std::map<std::string, bool>& binary,
                  std::size_t max_rows) {
    Collected out;
    while (auto page = reader.next_page()) {
        if (page->column_count() < plan.columns.size()) {
            out.problem = "a page has " + std::to_string(page->column_count()) + " columns, the plan " +
                          std::to_string(plan.columns.size());
            return out;
        }
        for (std::size_t row = 0; row < page->row_count(); ++row) {
            Row values;
            for (std::size_t column = 0; column < plan.columns.size(); ++column) {
                auto value = page->value(row, column);
                if (!value) values.emplace_back(std::nullopt);
                else if (binary.at(plan.columns[column].name)) values.emplace_back(hex(*value));
                else values.emplace_back(std::string(*value));
            }
            out.rows.push_back(std::move(values));
        }
        if (out.rows.size() > max_rows) {
            out.problem = "the reader delivered more than " + std::to_string(max_rows) + " rows: stopped";
            return out;
        }
    }
    return out;
}

std::vector<Row> checked(Collected collected) {
    if (!collected.problem.empty()) ADD_FAILURE() << collected.problem;
    return std::move(collected.rows);
}

}  // namespace

std::vector<Row> read_all(PageReader& reader, const ReadPlan& plan, const std::map<std::string, bool>& binary,
                          std::size_t max_rows) {
    return checked(collect(reader, plan, binary, max_rows));
}

std::vector<Row> read_all(const MySqlOptions& options, const std::shared_ptr<const ReadPlan>& plan,
                          const std::map<std::string, bool>& binary, KeyRange range, std::size_t max_rows) {
    // The reader runs on a thread that owns everything it touches: when next_page() never returns, the
    // test fails after a while instead of hanging the suite, and the thread ends once the fixture drops
    // the table under it.
    auto promise = std::make_shared<std::promise<Collected>>();
    auto result = promise->get_future();
    std::thread([options, plan, binary, range, max_rows, promise] {
        try {
            PageReader reader(options, plan, range);
            promise->set_value(collect(reader, *plan, binary, max_rows));
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    }).detach();
    if (result.wait_for(read_timeout) == std::future_status::timeout) {
        ADD_FAILURE() << "the reader did not finish within " << read_timeout.count()
                      << " s: next_page() loops without returning";
        return {};
    }
    return checked(result.get());
}

namespace {

std::string show(const Row& row) {
    std::ostringstream out;
    out << "(";
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? ", " : "") << (row[i] ? "'" + *row[i] + "'" : "NULL");
    out << ")";
    return out.str();
}

}  // namespace

std::string first_difference(const std::vector<Row>& actual, const std::vector<Row>& expected) {
    std::ostringstream out;
    out << "read " << actual.size() << " rows, expected " << expected.size();
    for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
        if (actual[i] != expected[i]) {
            out << "; first difference at row " << i << ": read " << show(actual[i]) << ", expected "
                << show(expected[i]);
            return out.str();
        }
    }
    if (actual.size() > expected.size()) out << "; first extra row read: " << show(actual[expected.size()]);
    if (expected.size() > actual.size()) out << "; first row missing: " << show(expected[actual.size()]);
    return out.str();
}

}  // namespace rowpump::test
