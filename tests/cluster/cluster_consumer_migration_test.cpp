// A slot migration under a running consumer: while `queue consume` drains the queue, its slot is moved to
// another master by hand (the fixture's migrate_keys and finish_migration, as the producer's migration test
// does). The consumer waits out the ASKs while the keys are on the importing node, follows the MOVED to the
// new owner, and goes on draining there: no task is lost (at-least-once: a task in flight when the slot
// moved may be handled twice, and the test counts those).
#include "cluster/cluster_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 1000;

class ClusterConsumerMigrationTest : public ClusterTableTest<rows> {
protected:
    // `queue consume` with a --pipe handler that records each task in `handled` and rests 50 ms every 10: the
    // drain takes about 5 s, long enough to move the slot under it, at a pace that does not depend on the
    // machine's load (a shell and a `cat` a task took 10 s alone and 26 s on a busy machine, and most of a
    // core).
    std::vector<std::string> consumer_args(const std::string& handled) {
        return {"queue", "consume", "--source", url_, "--queue", queue_, "--until-empty", "--consumer", "mover", "--pipe",
                "n=0; while IFS= read -r task; do printf '%s\\n' \"$task\" >> '" + handled +
                    "'; n=$((n + 1)); [ $((n % 10)) -ne 0 ] || sleep 0.05; echo ok; done"};
    }
};

TEST_F(ClusterConsumerMigrationTest, ConsumerFollowsItsSlotToTheNewOwner) {
    const CliRun backfill = run_rowpump(backfill_args({"--workers", "1"}));
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    // The due rows of cluster_source_table are an hour ahead: promote nothing, drain the ready list.
    const long long ready = length(queue_);
    ASSERT_GT(ready, 0);

    const std::string handled = temp_file("handled");
    CliProcess consumer(consumer_args(handled));
    ASSERT_TRUE(wait_until([&] { return lines(slurp(handled)).size() >= 100; }, std::chrono::seconds(30)))
        << consumer.describe();

    const NodeInfo source = node_at(owner_address());
    const NodeInfo target = other_master(source);
    ASSERT_FALSE(target.id.empty());
    migrate_keys(source, target);
    finish_migration(target);
    const long long left = length(queue_);  // read on the new owner
    EXPECT_GT(left, 0) << "the consumer drained the queue before the slot moved: the test moved nothing under it";
    EXPECT_FALSE(consumer.poll()) << "the consumer ended while its slot moved: " << consumer.describe();

    const auto ended = consumer.wait_for(std::chrono::seconds(120));
    ASSERT_EQ(ended, 0) << consumer.describe();
    const std::regex followed("slot " + std::to_string(slot_) + " moved to \\S*" + target.address() + "\\S*: following it there");
    EXPECT_TRUE(std::regex_search(consumer.err(), followed)) << "the consumer did not say it followed the slot: " << consumer.describe();
    std::map<int, int> seen;
    count_ids(lines(slurp(handled)), seen);
    std::remove(handled.c_str());
    int twice = 0;
    for (const auto& [id, times] : seen) twice += times > 1 ? times - 1 : 0;
    RecordProperty("handled_twice", twice);
    EXPECT_EQ(static_cast<long long>(seen.size()), ready) << "tasks lost, or ids outside the ready rows";
    EXPECT_LE(twice, 10) << "more duplicates than the tasks one consumer holds at the move";
    EXPECT_EQ(length(queue_), 0);
    EXPECT_EQ(length(queue_ + ":processing:mover:0"), 0);
}

// The masters learn a slot's new owner one by one. Here the old owner already sends clients to the new one,
// which is still importing and sends them back: the consumer waits that out (it logs the retry) instead of
// ending, and drains the queue once the new owner takes the slot.
TEST_F(ClusterConsumerMigrationTest, ConsumerWaitsOutAnOwnerThatDoesNotKnowItYet) {
    const CliRun backfill = run_rowpump(backfill_args({"--workers", "1"}));
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    const long long ready = length(queue_);
    ASSERT_GT(ready, 0);
    const std::string handled = temp_file("handled");
    CliProcess consumer(consumer_args(handled));
    ASSERT_TRUE(wait_until([&] { return lines(slurp(handled)).size() >= 100; }, std::chrono::seconds(30)))
        << consumer.describe();

    const NodeInfo source = node_at(owner_address());
    const NodeInfo target = other_master(source);
    ASSERT_FALSE(target.id.empty());
    migrate_keys(source, target);
    for (const NodeInfo& node : cluster_nodes())
        if (node.master && node.id != target.id)
            connect(node).command({"CLUSTER", "SETSLOT", std::to_string(slot_), "NODE", target.id});
    const bool retried = wait_until([&] { return consumer.err().find("is still being handed over") != std::string::npos; },
                                    std::chrono::seconds(30));
    EXPECT_TRUE(retried) << "the consumer never met the new owner's redirect back: " << consumer.describe();
    EXPECT_FALSE(consumer.poll()) << "the consumer ended while the new owner did not know its slot: " << consumer.describe();
    connect(target).command({"CLUSTER", "SETSLOT", std::to_string(slot_), "NODE", target.id});

    ASSERT_EQ(consumer.wait_for(std::chrono::seconds(120)), 0) << consumer.describe();
    std::map<int, int> seen;
    count_ids(lines(slurp(handled)), seen);
    std::remove(handled.c_str());
    EXPECT_EQ(static_cast<long long>(seen.size()), ready) << "tasks lost, or ids outside the ready rows";
    EXPECT_EQ(length(queue_), 0);
}

}  // namespace
}  // namespace rowpump::test
