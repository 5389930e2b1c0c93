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

    std::vector<std::string> queue_args(const std::string& subcommand, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> args{"queue", subcommand, "--source", url_, "--queue", queue_,
                                      "--priority-lists", "high,mid,low"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    // The count `state` of `queue stats`: "  ready      225".
    long long stat(const std::string& state) {
        const CliRun run = run_rowpump(queue_args("stats"));
        EXPECT_EQ(run.exit_code, 0) << run.describe();
        std::smatch match;
        const std::regex line("\\n  " + state + " +(\\d+)");
        if (!std::regex_search(run.out, match, line)) {
            ADD_FAILURE() << "no " << state << " in " << run.describe();
            return -1;
        }
        return std::stoll(match[1]);
    }
};

TEST_F(ClusterConsumerTest, StatsPromoteConsumeRequeueDeadAndReapWork) {
    const CliRun backfill = run_rowpump(
        backfill_args({"--workers", "1", "--priority-column", "prio", "--priority", "high:2,mid:1,low", "--due-column", "due"}));
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    EXPECT_EQ(stat("ready"), rows - rows / 4);
    EXPECT_EQ(stat("delayed"), rows / 4);

    const CliRun promote = run_rowpump(queue_args("promote"));
    ASSERT_EQ(promote.exit_code, 0) << promote.describe();
    EXPECT_EQ(stat("ready"), rows);
    EXPECT_EQ(stat("delayed"), 0);

    // Row 7 fails and, with one attempt, goes dead; every other row is handled once.
    const std::string handled = temp_file("handled");
    const CliRun consume = run_rowpump(queue_args(
        "consume", {"--until-empty", "--max-attempts", "1", "--concurrency", "2", "--exec",
                    "payload=$(cat); case \"$payload\" in *'\"id\":7,'*) exit 1;; esac; echo \"$payload\" >> " + handled}));
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
