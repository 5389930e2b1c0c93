// The consumer side on the Redis Cluster: queue stats, promote, consume, requeue-dead and reap against the
// node that owns the queue's slot, where a backfill with priority lists and delayed rows wrote.
#include <signal.h>

#include <fstream>

#include "cluster/cluster_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 300;

class ClusterConsumerTest : public ClusterTest {
protected:
    // Every 4th row is due an hour ago: it waits in the delayed set until promoted.
    std::optional<SourceTable> source_table() const override { return cluster_source_table(rows, true); }

    std::vector<std::string> queue_options() const override { return {"--queue", queue_, "--priority-lists", "high,mid,low"}; }
};

TEST_F(ClusterConsumerTest, StatsPromoteConsumeRequeueDeadAndReapWork) {
    const CliRun backfill = run_rowpump(
        backfill_args({"--workers", "1", "--priority-column", "prio", "--priority", "high:2,mid:1,low", "--due-column", "due"}));
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    expect_promote_readies_the_due_rows(rows);
    if (HasFatalFailure()) return;

    // Row 7 fails and, with one attempt, goes dead; every other row is handled once.
    const std::string handled = temp_file("handled");
    const CliRun consume = run_rowpump(queue_args(
        "consume", {"--until-empty", "--max-attempts", "1", "--concurrency", "2", "--pipe",
                    recording_handler(handled, 7)}));
    EXPECT_EQ(consume.exit_code, 4) << consume.describe();  // drained, with a dead task
    std::map<int, int> seen;
    for (const std::string& line : lines(slurp(handled))) count_ids({line}, seen);
    std::remove(handled.c_str());
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows - 1));
    EXPECT_EQ(seen.count(7), 0u);
    for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << "row " << id;
    EXPECT_EQ(stat("dead"), 1);

    const CliRun requeue = run_rowpump(queue_args("requeue-dead"));
    ASSERT_EQ(requeue.exit_code, 0) << requeue.describe();
    EXPECT_EQ(stat("dead"), 0);
    EXPECT_EQ(stat("ready"), 1);

    // A consumer killed while it holds row 7; reap gives the task back once its heartbeat has expired.
    CliProcess stuck(queue_args("consume", {"--consumer", "stuck", "--heartbeat-timeout", "1", "--exec", "sleep 60"}));
    ASSERT_TRUE(wait_until([&] { return stat("processing") == 1; }, std::chrono::seconds(20))) << stuck.describe();
    stuck.kill();
    ASSERT_TRUE(wait_until(
        [&] {
            const CliRun reap = run_rowpump(queue_args("reap", {"--heartbeat-timeout", "1"}));
            EXPECT_EQ(reap.exit_code, 0) << reap.describe();
            return stat("ready") == 1;
        },
        std::chrono::seconds(20)));
    EXPECT_EQ(stat("processing"), 0);
}

}  // namespace
}  // namespace rowpump::test
