// --max-load and --critical-load on status variables that hold no number (Slave_running 'OFF', Ssl_cipher
// '', Innodb_buffer_pool_load_status's text): the run used to pass the pre-run check and then sit at 0
// rows for ever, logging "load the load cannot be read". Now the check refuses them with exit 2 and one
// line before anything is written; a numeric variable still runs; and a load that truly cannot be read
// (a frozen server) is said without the repeated word.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "fault/freezing_proxy.hpp"
#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::size_t lines_in(const std::string& path) {
    std::ifstream in(path);
    std::size_t count = 0;
    for (std::string line; std::getline(in, line);) ++count;
    return count;
}

class LoadLimitsTest : public Prepared<MySqlTest> {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"load_limits", "(id INT PRIMARY KEY, note VARCHAR(20) NOT NULL)",
                           "INSERT INTO {t} SELECT seq, CONCAT('n', seq) FROM seq_1_to_5000"};
    }
    void prepare() override {
        output_ = temp_file("load_limits_out");
    }
    void TearDown() override {
        std::remove(output_.c_str());
        MySqlTest::TearDown();
    }

    std::vector<std::string> backfill(const std::string& url, std::vector<std::string> more) const {
        std::vector<std::string> args{"backfill", "--mysql",   url,       "--table",     table_,
                                      "--sink",   "file:" + output_, "--overwrite", "--workers", "2"};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }

    std::string output_;
};

TEST_F(LoadLimitsTest, AStatusVariableThatHoldsNoNumberExits2InOneLineBeforeAnyRow) {
    const auto refused = [&](const std::string& flag, const std::string& limit, const std::string& variable) {
        SCOPED_TRACE(flag + " " + limit);
        CliProcess run(backfill(mysql_url_, {flag, limit}));
        const auto ended = run.wait_for(20s);
        ASSERT_TRUE(ended) << "still running after 20 s: the check let it through\n" << run.describe();
        EXPECT_EQ(*ended, 2) << run.describe();
        const auto err = lines(run.err());
        ASSERT_EQ(err.size(), 1u) << run.describe();
        EXPECT_TRUE(contains(err[0], flag + " " + variable + "=")) << err[0];
        EXPECT_TRUE(contains(err[0], "the global status variable " + variable + " holds '")) << err[0];
        EXPECT_TRUE(contains(err[0], "not a number")) << err[0];
        EXPECT_TRUE(contains(err[0], "e.g. Threads_running")) << err[0];
        EXPECT_EQ(lines_in(output_), 0u);
    };
    // The local MariaDB is no replica (OFF), has no TLS (''), and logs when its buffer pool was loaded.
    refused("--max-load", "Slave_running=0", "Slave_running");
    refused("--max-load", "Ssl_cipher=1", "Ssl_cipher");
    refused("--max-load", "Threads_running=50,Innodb_buffer_pool_load_status=1", "Innodb_buffer_pool_load_status");
    refused("--critical-load", "Slave_running=1", "Slave_running");
}

TEST_F(LoadLimitsTest, ANumericStatusVariableStillRunsToTheEnd) {
    const auto run = run_rowpump(
        backfill(mysql_url_, {"--max-load", "Threads_connected=100000", "--critical-load", "Threads_running=100000"}));
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    EXPECT_EQ(lines_in(output_), 5000u) << run.describe();
}

// A frozen server: the look at the load times out, and the gate holds the copy saying why, once.
TEST_F(LoadLimitsTest, ALoadThatCannotBeReadIsSaidWithoutTheRepeatedWord) {
    ASSERT_TRUE(options().socket.empty()) << "the relay needs the server on TCP";
    FreezingProxy proxy(options().host, options().port);
    // Without its password: the fixture hands it to the child in ROWPUMP_MYSQL_PASSWORD.
    const std::string url = "mysql://" + options().user + "@127.0.0.1:" + std::to_string(proxy.port()) + "/" +
                            options().database;
    CliProcess run(backfill(url, {"--max-load", "Threads_running=100000", "--rate", "500", "--page-size", "50"}));
    ASSERT_TRUE(wait_until([&] { return lines_in(output_) > 0 || run.poll(); }, 20s)) << run.describe();
    ASSERT_FALSE(run.poll()) << "the run ended before the server froze\n" << run.describe();
    proxy.freeze();
    const std::string says = "reading pauses between pages: load ";
    ASSERT_TRUE(wait_until([&] { return contains(run.err(), says); }, 20s))
        << "no line says the load cannot be read\n" << run.describe();
    const std::string err = run.err();
    const std::string line = err.substr(err.find(says), err.find('\n', err.find(says)) - err.find(says));
    EXPECT_TRUE(contains(line, says + "cannot be read: ")) << line;
    EXPECT_FALSE(contains(line, "load the load")) << line;
    run.kill();
}

}  // namespace
}  // namespace rowpump::test
