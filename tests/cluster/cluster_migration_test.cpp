// A slot migration under a running backfill: the queue's slot is moved to another master by hand
// (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE of its keys, SETSLOT NODE), and the sink follows ASK while
// the keys are on the importing node and MOVED once the slot is there, with no row lost. The plain sink is
// at-least-once: a page redirected midway may arrive twice.
#include "cluster/cluster_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 4000;

using ClusterMigrationTest = ClusterTableTest<rows>;

TEST_F(ClusterMigrationTest, SlotMovedMidRunIsFollowedThroughAskAndMoved) {
    CliProcess backfill(backfill_args({"--workers", "1", "--page-size", "100", "--rate", "1000", "--priority-column",
                                       "prio", "--priority", "high:2,mid:1,low", "--due-column", "due"}));
    const std::string high = queue_+ ":p:high";
    ASSERT_TRUE(wait_until([&] { return length(high) > 0; }, std::chrono::seconds(20))) << backfill.describe();

    const NodeInfo source = node_at(owner_address());
    const NodeInfo target = other_master(source);
    ASSERT_FALSE(target.id.empty());
    migrate_keys(source, target);
    redis::Connection to = connect(target);
    // Every key is on the target now, which serves them only after ASKING: the sink's pages keep arriving.
    const auto target_length = [&] {
        to.append({"ASKING"});
        to.append({"LLEN", high});
        return to.read_replies(2).at(1).integer;
    };
    const long long moved = target_length();
    EXPECT_TRUE(wait_until([&] { return target_length() > moved; }, std::chrono::seconds(20)))
        << "no page reached the importing node through ASK\n" << backfill.describe();
    EXPECT_FALSE(backfill.poll()) << "the backfill ended before the migration did: " << backfill.describe();

    finish_migration(target);

    const auto ended = backfill.wait_for(std::chrono::seconds(60));
    ASSERT_EQ(ended, 0) << backfill.describe();
    std::map<int, int> seen;
    for (const char* level : {"high", "mid", "low"}) count_ids(members(queue_ + ":p:" + level), seen);
    count_ids(members(queue_ + ":delayed", true), seen);
    expect_every_row(seen, rows, /*at_least_once=*/true);
}

}  // namespace
}  // namespace rowpump::test
