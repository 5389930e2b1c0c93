// The CLI prints the library's messages as it always did: "rowpump: LEVEL: message" on stderr, debug
// lines with -v, nothing but errors with -q.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"

namespace rowpump::test {
namespace {

const std::string offset_warning =
    "rowpump: warning: the offset strategy reads every skipped row again on each page; it is a benchmark "
    "baseline, use keyset for real work";

class LogLinesCliTest : public MySqlTest {
protected:
    std::string three_rows() {
        const auto table = tables().create("log_lines", "(id INT PRIMARY KEY)");
        tables().execute(table, "INSERT INTO {t} VALUES (1), (2), (3)");
        return table;
    }
};

TEST_F(LogLinesCliTest, WarningAndDebugLinesCarryTheirLevel) {
    const auto table = three_rows();
    const auto result = run_rowpump({"-v", "read", "--table", table, "--strategy", "offset"});
    ASSERT_EQ(result.exit_code, 0) << result.describe();
    const auto err = lines(result.err);
    EXPECT_NE(std::find(err.begin(), err.end(), offset_warning), err.end()) << result.describe();
    EXPECT_TRUE(std::any_of(err.begin(), err.end(), [](const std::string& line) {
        return line.rfind("rowpump: debug: paging ", 0) == 0;
    })) << result.describe();
}

TEST_F(LogLinesCliTest, WarningsWithoutDebugAndNothingWithQuiet) {
    const auto table = three_rows();
    const auto plain = run_rowpump({"read", "--table", table, "--strategy", "offset"});
    ASSERT_EQ(plain.exit_code, 0) << plain.describe();
    EXPECT_EQ(lines(plain.err), std::vector<std::string>{offset_warning}) << plain.describe();
    const auto quiet = run_rowpump({"-q", "read", "--table", table, "--strategy", "offset"});
    ASSERT_EQ(quiet.exit_code, 0) << quiet.describe();
    EXPECT_EQ(quiet.err, "") << quiet.describe();
}

}  // namespace
}  // namespace rowpump::test
