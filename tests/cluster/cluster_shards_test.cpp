// One queue over 4 shards of the Redis Cluster (--shards 4): a backfill spreads its pages over the shards
// {q:0} ... {q:3}, each holding within 10% of the mean; `queue stats|promote|requeue-dead` act on every
// shard; 4 consumer processes, each reading every shard, handle every task exactly once. Bad counts and
// the setups --shards does not serve are refused with exit 2 and one line.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "cluster/cluster_fixture.hpp"
#include "integration/prepared_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 1000;
constexpr int shards = 4;

class ClusterShardsTest : public Prepared<ClusterTest> {
protected:
    // Every 4th row is due an hour ago: it waits in its shard's delayed set until promoted.
    std::optional<SourceTable> source_table() const override { return cluster_source_table(rows, true); }

    void prepare() override { delete_shard_keys(); }
    void TearDown() override {
        if (client_) delete_shard_keys();
        ClusterTest::TearDown();
    }

    std::string shard(int i) const { return "{" + tag_ + ":" + std::to_string(i) + "}"; }
    std::uint16_t shard_slot(int i) const { return redis::key_slot(tag_ + ":" + std::to_string(i)); }
    redis::Reply on_shard(int i, std::initializer_list<std::string_view> argv) {
        return client_->retrying([&] { return client_->command(shard_slot(i), argv); });
    }

    std::vector<std::string> queue_options() const override { return {"--queue", tag_, "--shards", std::to_string(shards)}; }

private:
    void delete_shard_keys() {
        for (int i = 0; i < shards; ++i) {
            const auto keys = on_shard(i, {"CLUSTER", "GETKEYSINSLOT", std::to_string(shard_slot(i)), "100000"});
            for (const auto& key : keys.elements)
                if (key.text.find(shard(i)) != std::string::npos) on_shard(i, {"DEL", key.text});
        }
    }
};

TEST_F(ClusterShardsTest, BackfillSpreadsEvenlyAndFourConsumersDrainEveryTaskOnce) {
    // Pages of 10 rows from 2 workers: the balance keeps the shards within a page or two (8% of the mean
    // of 250) of each other.
    const CliRun backfill = run_rowpump(backfill_args({"--shards", std::to_string(shards), "--workers", "2",
                                                       "--page-size", "10", "--max-page-size", "10", "--due-column",
                                                       "due"}));
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    EXPECT_EQ(length(queue_), 0) << "rows went to the unsharded queue";

    std::map<int, int> written;
    std::vector<long long> sizes;
    for (int i = 0; i < shards; ++i) {
        std::vector<std::string> ready, delayed;
        for (const auto& task : on_shard(i, {"LRANGE", shard(i), "0", "-1"}).elements) ready.push_back(task.text);
        for (const auto& member : on_shard(i, {"ZRANGE", shard(i) + ":delayed", "0", "-1"}).elements)
            delayed.push_back(member.text);
        count_ids(ready, written);
        count_ids(delayed, written);
        sizes.push_back(static_cast<long long>(ready.size() + delayed.size()));
    }
    expect_every_row(written, rows);
    const double mean = static_cast<double>(rows) / shards;
    for (int i = 0; i < shards; ++i)
        EXPECT_NEAR(static_cast<double>(sizes[static_cast<std::size_t>(i)]), mean, mean * 0.10)
            << "shard " << shard(i) << " of " << shards;

    expect_promote_readies_the_due_rows(rows);
    if (HasFatalFailure()) return;

    // Row 7 fails once and goes dead; every other row is handled once, by whichever consumer took it.
    // The four handlers wait for one another before their first task (each leaves its pid in `started`):
    // a drain this fast could otherwise end before the last consumer has started.
    const std::filesystem::path started =
        std::filesystem::path(::testing::TempDir()) / ("rowpump_started_" + std::to_string(::getpid()));
    std::filesystem::remove_all(started);
    std::filesystem::create_directories(started);
    const std::unique_ptr<const std::filesystem::path, void (*)(const std::filesystem::path*)> removed_at_end(
        &started, [](const std::filesystem::path* dir) { std::filesystem::remove_all(*dir); });
    const std::string barrier = ": > '" + started.string() + "'/$$; while set -- '" + started.string() +
                                "'/*; [ $# -lt 4 ]; do sleep 0.01; done; ";
    std::vector<std::string> handled;
    std::vector<std::unique_ptr<CliProcess>> consumers;
    for (int c = 0; c < 4; ++c) {
        handled.push_back(temp_file("handled"));
        consumers.push_back(std::make_unique<CliProcess>(queue_args(
            "consume", {"--until-empty", "--max-attempts", "1", "--inflight", "10", "--pipe",
                        barrier + recording_handler(handled.back(), 7)})));
    }
    int dead_exits = 0;
    for (auto& consumer : consumers) {
        const auto ended = consumer->wait_for(std::chrono::seconds(120));
        ASSERT_TRUE(ended.has_value()) << consumer->describe();
        EXPECT_TRUE(*ended == 0 || *ended == 4) << consumer->describe();
        dead_exits += *ended == 4 ? 1 : 0;
    }
    EXPECT_EQ(dead_exits, 1) << "one consumer saw row 7 go dead";
    std::map<int, int> seen;
    for (const std::string& path : handled) {
        const auto done = lines(slurp(path));
        EXPECT_GT(done.size(), 0u) << "a consumer handled nothing: " << path;
        count_ids(done, seen);
        std::remove(path.c_str());
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows - 1));
    EXPECT_EQ(seen.count(7), 0u);
    for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << "row " << id;
    EXPECT_EQ(stat("ready"), 0);
    EXPECT_EQ(stat("processing"), 0);
    EXPECT_EQ(stat("dead"), 1);

    const CliRun requeue = run_rowpump(queue_args("requeue-dead"));
    ASSERT_EQ(requeue.exit_code, 0) << requeue.describe();
    EXPECT_EQ(stat("dead"), 0);
    EXPECT_EQ(stat("ready"), 1);
}

TEST_F(ClusterShardsTest, BadShardCountsAndSetupsAreRefusedInOneLine) {
    const auto refused = [](const CliRun& run, const std::string& says) {
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        const auto said = lines(run.err);
        ASSERT_EQ(said.size(), 1u) << run.describe();
        EXPECT_NE(said.front().find(says), std::string::npos) << run.describe();
    };
    for (const char* bad : {"0", "-1", "many", "1025", "2.5"}) {
        SCOPED_TRACE(bad);
        refused(run_rowpump(backfill_args({"--shards", bad})), "--shards");
        refused(run_rowpump({"queue", "stats", "--source", url_, "--queue", tag_, "--shards", bad}), "--shards");
    }
    refused(run_rowpump(backfill_args({"--shards", "4", "--job-id", "shards-job"})), "--job-id");
    refused(run_rowpump(backfill_args({"--shards", "4", "--format", "sidekiq", "--job-class", "X"})), "--shards");
    refused(run_rowpump({"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", "redis://127.0.0.1:1/0",
                         "--queue", "q", "--shards", "4"}),
            "Redis Cluster");
    refused(run_rowpump({"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", url_, "--queue", "{a}{b}",
                         "--shards", "4"}),
            "braces");
    for (int i = 0; i < shards; ++i)
        EXPECT_EQ(on_shard(i, {"EXISTS", shard(i), shard(i) + ":delayed"}).integer, 0) << "a refused run wrote to " << shard(i);
}

}  // namespace
}  // namespace rowpump::test
