// The upper bound frozen at the start (docs/DESIGN.md, "Partitioning"): rows inserted above the key's
// maximum while a backfill runs are not copied, so a growing table's backfill ends; with --follow they
// are, each once. The run is slowed with --rate so that the inserts land while it reads.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows_at_start = 20000;
constexpr int rows_added = 3000;

class FrozenBoundTest : public MySqlTest {
protected:
    std::optional<SourceTable> source_table() const override {
        return sha1_rows_table("frozen", rows_at_start);
    }
    void TearDown() override {
        std::remove(output_.c_str());
        MySqlTest::TearDown();
    }

    // Runs a backfill to a file at 10,000 rows/s and, once it has started writing, inserts rows above
    // the maximum. Returns the ids written.
    std::multiset<long> backfill_while_rows_are_added(bool follow) {
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_for_command_line(), "--table", table_,
                                      "--sink", "file:" + output_, "--overwrite", "--columns", "id",
                                      "--workers", "2", "--rate", "10000", "--page-size", "500"};
        if (follow) args.push_back("--follow");
        CliProcess run(args);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (slurp(output_).empty() && !run.poll() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        EXPECT_FALSE(run.poll()) << "the run ended before rows were added: " << run.describe();
        tables().execute(table_, "INSERT INTO {t} SELECT " + std::to_string(rows_at_start) + " + seq, SHA1(seq) FROM seq_1_to_" +
                                     std::to_string(rows_added));
        const auto ended = run.wait_for(std::chrono::seconds(60));
        EXPECT_EQ(ended, std::optional<int>(0)) << run.describe();
        std::multiset<long> ids;
        for (const auto& line : lines(slurp(output_))) {
            const auto colon = line.find(':');
            ids.insert(std::stol(line.substr(colon + 1)));
        }
        return ids;
    }

    std::string output_ = temp_file("frozen");
};

TEST_F(FrozenBoundTest, RowsAddedAboveTheMaximumDuringARunAreNotCopied) {
    const auto ids = backfill_while_rows_are_added(false);
    EXPECT_EQ(ids.size(), static_cast<std::size_t>(rows_at_start));
    EXPECT_EQ(std::set<long>(ids.begin(), ids.end()).size(), ids.size()) << "a row was written twice";
    EXPECT_EQ(*ids.rbegin(), rows_at_start);
}

TEST_F(FrozenBoundTest, FollowCopiesTheRowsAddedDuringTheRunOnce) {
    const auto ids = backfill_while_rows_are_added(true);
    EXPECT_EQ(ids.size(), static_cast<std::size_t>(rows_at_start + rows_added));
    EXPECT_EQ(std::set<long>(ids.begin(), ids.end()).size(), ids.size()) << "a row was written twice";
    EXPECT_EQ(*ids.rbegin(), rows_at_start + rows_added);
}

TEST_F(FrozenBoundTest, FollowWithAJobIdIsRefusedBeforeAnythingIsWritten) {
    const CliRun run = run_rowpump({"backfill", "--mysql", mysql_url_for_command_line(), "--table", table_, "--sink",
                                    "file:" + output_, "--overwrite", "--follow", "--job-id", "rp_test_follow"});
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_NE(run.err.find("--follow cannot be combined with --job-id"), std::string::npos) << run.err;
    EXPECT_TRUE(slurp(output_).empty());
}

}  // namespace
}  // namespace rowpump::test
