// A master failover under a running backfill with a job id: CLUSTER FAILOVER on the replica of the master
// that owns the queue's slot. The replica takes over once it has caught up, the old master answers MOVED,
// the job's ledgers open again on the new master and lease their ranges again from their checkpoints, and
// every row is in the queue exactly once.
#include "cluster/cluster_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 4000;

using ClusterFailoverTest = ClusterTableTest<rows>;

TEST_F(ClusterFailoverTest, FailoverMidRunKeepsExactlyOnceWithAJobId) {
    const std::vector<std::string> job{"--workers", "2", "--page-size", "100", "--rate", "1000", "--lease-timeout",
                                       "2", "--priority-column", "prio", "--priority", "high:2,mid:1,low",
                                       "--due-column", "due", "--job-id", "failover"};
    CliProcess backfill(backfill_args(job));
    const std::string high = queue_ + ":p:high";
    ASSERT_TRUE(wait_until([&] { return length(high) > 0; }, std::chrono::seconds(20))) << backfill.describe();

    const NodeInfo master = node_at(owner_address());
    NodeInfo replica;
    for (const NodeInfo& node : cluster_nodes())
        if (!node.master && node.master_id == master.id) replica = node;
    ASSERT_FALSE(replica.id.empty()) << "the master at " << master.address() << " has no replica";
    connect(replica).command({"CLUSTER", "FAILOVER"});
    ASSERT_TRUE(wait_until([&] { return owner_address() == replica.address(); }, std::chrono::seconds(20)));
    EXPECT_FALSE(backfill.poll()) << "the backfill ended before the failover: " << backfill.describe();

    const auto ended = backfill.wait_for(std::chrono::seconds(60));
    ASSERT_EQ(ended, 0) << backfill.describe();
    EXPECT_NE(backfill.err().find("moved to redis://" + replica.host + ":" + std::to_string(replica.port)), std::string::npos)
        << "the run did not follow the slot to the new master\n" << backfill.describe();
    // A range whose lease was held under the old master's client id may be left for a resume.
    const CliRun resumed = run_rowpump(backfill_args(job));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
    std::map<int, int> seen;
    for (const char* level : {"high", "mid", "low"}) count_ids(members(queue_ + ":p:" + level), seen);
    count_ids(members(queue_ + ":delayed", true), seen);
    expect_every_row(seen, rows);
}

}  // namespace
}  // namespace rowpump::test
