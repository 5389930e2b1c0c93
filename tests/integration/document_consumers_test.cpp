// The PHP consumers of the documents rowpump was designed from (tests/consumers/*.php), unchanged, run
// by php-cli against what `rowpump backfill` wrote (docs/payloads-and-names.md): priority lists named by
// --list-key, a delay set named by --delayed-key and scored in seconds, bare ids from --template '{id}',
// and big numbers that PHP's json_decode keeps exact with --big-numbers string. The documents' key names
// are fixed, so each test writes to a private Redis server of its own.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/redis_fixture.hpp"

namespace rowpump::test {
namespace {

// php-cli running one of tests/consumers/*.php; its stdout, or a test failure.
std::string run_php(const std::string& script, const std::vector<std::string>& args) {
    std::string command = "php " + std::string(ROWPUMP_SOURCE_DIR) + "/tests/consumers/" + script;
    for (const std::string& arg : args) command += " '" + arg + "'";
    command += " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
        ADD_FAILURE() << "cannot run " << command;
        return {};
    }
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << command << "\n" << out << "(php-cli, php-redis and php-mysql: scripts/setup.sh)";
    return out;
}

class DocumentConsumersTest : public MySqlTest {
protected:
    // A table `goods` of `rows` rows: id 1..rows, amount = id * 10, name "item <id>".
    std::string goods(int rows) {
        const std::string table =
            tables().create("goods", "(id BIGINT PRIMARY KEY, amount INT NOT NULL, name VARCHAR(40))");
        std::string values;
        for (int id = 1; id <= rows; ++id)
            values += (id > 1 ? "," : "") + std::string("(") + std::to_string(id) + "," + std::to_string(id * 10) +
                      ",'item " + std::to_string(id) + "')";
        tables().execute(table, "INSERT INTO {t} VALUES " + values);
        return table;
    }

    CliRun backfill(const std::string& table, std::vector<std::string> flags) {
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_, "--table", table, "--sink", redis_.url(),
                                      "--workers", "1"};
        args.insert(args.end(), flags.begin(), flags.end());
        CliRun run = run_rowpump(args);
        EXPECT_EQ(run.exit_code, 0) << run.describe();
        return run;
    }

    std::string port() const { return std::to_string(redis_.port()); }

    PrivateRedisServer redis_;
};

TEST_F(DocumentConsumersTest, PriorityConsumerPopsTheListsNamedByListKey) {
    const std::string table = goods(30);
    backfill(table, {"--queue", "goods", "--priority-column", "amount", "--priority", "high:201,mid:101,low",
                     "--list-key", "goods:{level}:task"});
    const auto popped = lines(run_php("priority_consumer.php", {port()}));
    ASSERT_EQ(popped.size(), 30u);
    // blPop takes the first non-empty list: every high task (amount > 200), then mid, then low.
    for (std::size_t i = 0; i < popped.size(); ++i) {
        const int id = static_cast<int>(i < 10 ? 21 + i : i < 20 ? i - 10 + 11 : i - 20 + 1);
        const char* list = i < 10 ? "goods:high:task" : i < 20 ? "goods:mid:task" : "goods:low:task";
        EXPECT_EQ(popped[i].substr(0, popped[i].find(' ')), list) << popped[i];
        EXPECT_NE(popped[i].find("{\"id\":" + std::to_string(id) + ","), std::string::npos) << popped[i];
    }
}

TEST_F(DocumentConsumersTest, DelayMoverComparesSecondScoresWithTime) {
    const std::string table = goods(20);
    backfill(table, {"--queue", "goods", "--delay", "1", "--delayed-key", "goods:delay", "--delay-score", "s",
                     "--delayed-members", "bare", "--format", "template", "--template", "{id}"});
    redis::Connection redis(RedisOptions::from_url(redis_.url()));
    const double first = std::stod(redis.command({"ZRANGE", "goods:delay", "0", "0", "WITHSCORES"}).elements.at(1).text);
    const double now = std::stod(redis.command({"TIME"}).elements.at(0).text);
    EXPECT_GT(first, now - 1) << "scored in seconds, due a second after it was written";
    EXPECT_LT(first, now + 2);
    EXPECT_EQ(run_php("delay_mover.php", {port(), "15"}), "20\n");
    std::set<std::string> expected;
    for (int id = 1; id <= 20; ++id) expected.insert(std::to_string(id));
    const auto moved = list_items(redis, "goods:task");
    EXPECT_EQ(std::set<std::string>(moved.begin(), moved.end()), expected) << "bare payloads, each once";
}

TEST_F(DocumentConsumersTest, IdConsumerPutsTheBarePayloadIntoItsQuery) {
    const std::string table = goods(15);
    backfill(table, {"--queue", "goods:ids", "--format", "template", "--template", "{id}"});
    const auto consumed = lines(run_php("id_consumer.php", {port(), options().host, std::to_string(options().port),
                                                            options().user, options().database, table}));
    ASSERT_EQ(consumed.size(), 15u);
    for (int id = 1; id <= 15; ++id)
        EXPECT_EQ(consumed[id - 1], std::to_string(id) + " item " + std::to_string(id));
}

TEST_F(DocumentConsumersTest, BigNumbersSurviveJsonDecodeAsStrings) {
    const std::string table = tables().create("numbers", "(id INT PRIMARY KEY, d DECIMAL(30,10), big BIGINT UNSIGNED)");
    tables().execute(table, "INSERT INTO {t} VALUES (1, 12345678901234567890.0123456789, 18446744073709551615), "
                            "(2, -0.0000000001, 9007199254740993), (3, 1.5, 42)");
    backfill(table, {"--queue", "numbers", "--big-numbers", "string"});
    EXPECT_EQ(run_php("decode_numbers.php", {port(), "numbers"}),
              "'12345678901234567890.0123456789' '18446744073709551615'\n"
              "'-0.0000000001' '9007199254740993'\n"
              "'1.5000000000' 42\n");
}

}  // namespace
}  // namespace rowpump::test
