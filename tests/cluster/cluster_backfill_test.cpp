// A backfill into the Redis Cluster: priority lists, a delayed set and a job id, every row exactly once in
// the queue's one slot, a resume that adds nothing; names whose keys would be spread over slots refused.
#include "cluster/cluster_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 2000;

class ClusterBackfillTest : public ClusterTableTest<rows> {
protected:
    std::map<int, int> queue_rows() {
        std::map<int, int> seen;
        for (const char* level : {"high", "mid", "low"}) count_ids(members(queue_ + ":p:" + level), seen);
        count_ids(members(queue_ + ":delayed", true), seen);
        return seen;
    }
};

TEST_F(ClusterBackfillTest, PriorityListsDelayedSetAndJobIdGetEveryRowOnce) {
    const std::vector<std::string> job{"--workers", "2", "--partitions", "4", "--page-size", "150",
                                       "--priority-column", "prio", "--priority", "high:2,mid:1,low",
                                       "--due-column", "due", "--job-id", "cluster-job"};
    const CliRun run = run_rowpump(backfill_args(job));
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    const auto seen = queue_rows();
    expect_every_row(seen, rows);
    int high = 0;
    for (int id = 1; id <= rows; ++id) high += id % 3 == 2 && id % 4 != 0;
    EXPECT_EQ(length(queue_ + ":p:high"), high);
    EXPECT_EQ(command({"ZCARD", queue_ + ":delayed"}).integer, rows / 4);
    // The job's state sits in the queue's slot, under the queue's tag.
    EXPECT_EQ(command({"EXISTS", "rowpump:job:" + queue_ + ":cluster-job:meta"}).integer, 1);

    const CliRun again = run_rowpump(backfill_args(job));
    ASSERT_EQ(again.exit_code, 0) << again.describe();
    expect_every_row(queue_rows(), rows);
}

TEST_F(ClusterBackfillTest, NamesWhoseKeysLandInSeveralSlotsAreRefused) {
    std::vector<std::string> untagged = backfill_args({});
    untagged[8] = tag_;  // the queue without its braces
    const CliRun plain = run_rowpump(untagged);
    EXPECT_EQ(plain.exit_code, 2) << plain.describe();
    EXPECT_NE(plain.err.find("e.g. --queue '{" + tag_ + "}'"), std::string::npos) << plain.describe();
    EXPECT_EQ(lines(plain.err).size(), 1u) << plain.describe();

    const CliRun prefix = run_rowpump(backfill_args({"--job-id", "j", "--state-prefix", "app:jobs:"}));
    EXPECT_EQ(prefix.exit_code, 2) << prefix.describe();
    EXPECT_NE(prefix.err.find("--state-prefix 'rowpump:job:" + queue_ + ":'"), std::string::npos) << prefix.describe();

    const CliRun stats = run_rowpump({"queue", "stats", "--source", url_, "--queue", tag_});
    EXPECT_EQ(stats.exit_code, 2) << stats.describe();
    EXPECT_NE(stats.err.find("hash tag"), std::string::npos) << stats.describe();
    EXPECT_EQ(command({"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot_)}).integer, 0) << "nothing is written";
}

}  // namespace
}  // namespace rowpump::test
