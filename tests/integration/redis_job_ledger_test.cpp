// The Redis job ledger on its own: a page's pushes and its checkpoint are one MULTI/EXEC under WATCH, so
// a page is written whole with its checkpoint, refused whole after a takeover, and never counted when a
// push inside it failed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/registry/registry.hpp"
#include "checkpoint/job_store.hpp"
#include "checkpoint/key_codec.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/redis_fixture.hpp"
#include "rowpump/error.hpp"

namespace rowpump::test {
namespace {

class RedisJobLedgerTest : public Prepared<RedisTest> {
protected:
    void prepare() override {
        sink_.uri = url();
        sink_.queue = queue();
        definition_.job_id = "rp_test_ledger_" + std::to_string(::getpid());
        definition_.description = "a test job";
        definition_.fingerprint = "0123456789abcdef";
        definition_.key_columns = {Column{"id", "bigint(20)", ColumnKind::signed_integer}};
        definition_.lease_timeout = std::chrono::seconds(60);
        delete_keys(redis(), "rowpump:job:" + definition_.job_id + ":*");
    }
    void TearDown() override {
        ledger_.reset();
        store_.reset();
        delete_keys(redis(), "rowpump:job:" + definition_.job_id + ":*");
        RedisTest::TearDown();
    }

    std::unique_ptr<JobStore> store_with_one_range() {
        auto store = open_job_store(sink_, definition_);
        Partition whole;
        whole.estimated_rows = 10;
        store->create({whole});
        return store;
    }

    // A ledger of a new store of one range (store_, ledger_: both end before TearDown clears the keys).
    JobLedger* one_range_ledger() {
        store_ = store_with_one_range();
        ledger_ = store_->open_ledger();
        return ledger_.get();
    }

    std::string range_field(const std::string& field) {
        return redis().command({"HGET", redis::job_range(definition_.job_id, 0), field}).text;
    }

    static std::vector<Message> page(int first, int count) {
        std::vector<Message> out;
        for (int id = first; id < first + count; ++id) out.push_back(Message{"{\"id\":" + std::to_string(id) + "}"});
        return out;
    }

    // One page of two rows written, then `replace_queue` makes the queue key something the next page's
    // pushes fail on inside its MULTI: that page throws, and the range's checkpoint stays after the first.
    template <class ReplaceQueue>
    void expect_a_failed_page_keeps_the_checkpoint(ReplaceQueue replace_queue) {
        JobLedger* const ledger = one_range_ledger();
        auto range = ledger->lease();
        ASSERT_TRUE(range);
        ASSERT_EQ(ledger->write(*range, page(1, 2), KeyValue{std::int64_t{2}}), PageWrite::written);
        const std::string before = range_field("last_key");
        replace_queue();
        try {
            ledger->write(*range, page(3, 2), KeyValue{std::int64_t{4}});
            ADD_FAILURE() << "a page whose pushes failed was reported as written";
        } catch (const QueueError& error) {
            EXPECT_NE(std::string(error.what()).find("checkpoint did not move"), std::string::npos) << error.what();
        }
        EXPECT_EQ(range_field("last_key"), before);
        EXPECT_EQ(range_field("rows_written"), "2");
    }

    SinkSpec sink_;
    JobDefinition definition_;
    std::unique_ptr<JobStore> store_;
    std::unique_ptr<JobLedger> ledger_;
};

TEST_F(RedisJobLedgerTest, APageAndItsCheckpointLandTogether) {
    JobLedger* const ledger = one_range_ledger();
    auto range = ledger->lease();
    ASSERT_TRUE(range);
    ASSERT_EQ(ledger->write(*range, page(1, 3), KeyValue{std::int64_t{3}}), PageWrite::written);
    ASSERT_EQ(ledger->write(*range, page(4, 2), KeyValue{std::int64_t{5}}), PageWrite::written);
    EXPECT_EQ(list_items(redis(), queue()),
              (std::vector<std::string>{"{\"id\":1}", "{\"id\":2}", "{\"id\":3}", "{\"id\":4}", "{\"id\":5}"}));
    EXPECT_EQ(range_field("rows_written"), "5");
    EXPECT_TRUE(ledger->complete(*range));
    EXPECT_TRUE(store_->state().finished());
}

TEST_F(RedisJobLedgerTest, DelayedAndReadyMessagesOfOnePageGoToTheirKeys) {
    JobLedger* const ledger = one_range_ledger();
    auto range = ledger->lease();
    ASSERT_TRUE(range);
    auto messages = page(1, 3);
    messages[1].due_ms = 4102444800000;  // 2100-01-01
    ASSERT_EQ(ledger->write(*range, messages, KeyValue{std::int64_t{3}}), PageWrite::written);
    EXPECT_EQ(list_items(redis(), queue()), (std::vector<std::string>{"{\"id\":1}", "{\"id\":3}"}));
    // The member is tagged with the range's writer and the row's position in the range (1: the second).
    const std::string member =
        redis::delayed_member({redis::ledger_delayed_writer(definition_.job_id, 0), 1}, "{\"id\":2}");
    EXPECT_EQ(redis().command({"ZSCORE", redis::delayed_set(queue()), member}).text, "4102444800000");
}

TEST_F(RedisJobLedgerTest, ALedgerWhoseRangeWasTakenOverWritesNothing) {
    JobLedger* const ledger = one_range_ledger();
    auto range = ledger->lease();
    ASSERT_TRUE(range);
    ASSERT_EQ(ledger->write(*range, page(1, 2), KeyValue{std::int64_t{2}}), PageWrite::written);
    // Another owner takes the range (as a takeover after a lease expiry would).
    redis().command({"HSET", redis::job_range(definition_.job_id, 0), "owner", "999999999"});
    EXPECT_EQ(ledger->write(*range, page(3, 2), KeyValue{std::int64_t{4}}), PageWrite::lost);
    EXPECT_EQ(list_items(redis(), queue()).size(), 2u) << "a fenced-out page reached the queue";
    EXPECT_EQ(range_field("last_key"), encode_key(KeyValue{std::int64_t{2}}));
    EXPECT_FALSE(ledger->complete(*range));
}

TEST_F(RedisJobLedgerTest, APageWhosePushFailedDoesNotMoveTheCheckpoint) {
    // Someone replaces the list with a string mid-run.
    expect_a_failed_page_keeps_the_checkpoint([&] {
        redis().command({"DEL", queue()});
        redis().command({"SET", queue(), "not a list"});
    });
}

// The same on a stream replaced by a list: the page's XADDs fail, and the checkpoint script refuses to move.
TEST_F(RedisJobLedgerTest, AStreamPageWhoseXaddsFailedDoesNotMoveTheCheckpoint) {
    sink_.push = PushSide::xadd;
    expect_a_failed_page_keeps_the_checkpoint([&] {
        EXPECT_EQ(redis().command({"XLEN", queue()}).integer, 2);
        redis().command({"DEL", queue()});
        redis().command({"RPUSH", queue(), "not a stream"});
    });
    EXPECT_EQ(list_items(redis(), queue()), std::vector<std::string>{"not a stream"});
}

TEST_F(RedisJobLedgerTest, IdenticalDelayedRowsAreSeparateTasksAndAPageWrittenAgainAddsNone) {
    JobLedger* const ledger = one_range_ledger();
    auto range = ledger->lease();
    ASSERT_TRUE(range);
    const std::vector<Message> twins(50, Message{"{\"same\":1}", 0, 4102444800000});
    ASSERT_EQ(ledger->write(*range, twins, KeyValue{std::int64_t{50}}), PageWrite::written);
    EXPECT_EQ(redis().command({"ZCARD", redis::delayed_set(queue())}).integer, 50);

    // Whoever writes the same page from the same fence writes the same members: put the range back to
    // before the page, free its lease, and let a second ledger write the page again.
    redis().command({"HSET", redis::job_range(definition_.job_id, 0), "last_key", "", "rows_written", "0", "owner",
                     "0"});
    auto second = store_->open_ledger();
    auto again = second->lease();
    ASSERT_TRUE(again);
    ASSERT_EQ(second->write(*again, twins, KeyValue{std::int64_t{50}}), PageWrite::written);
    EXPECT_EQ(redis().command({"ZCARD", redis::delayed_set(queue())}).integer, 50) << "the page added members";
}

TEST_F(RedisJobLedgerTest, AQueueKeyOfTheWrongTypeIsRefusedBeforeTheJobExists) {
    redis().command({"SET", queue(), "not a list"});
    try {
        open_job_store(sink_, definition_);
        ADD_FAILURE() << "a job store opened over a string key";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("expected a list"), std::string::npos) << error.what();
    }
    EXPECT_EQ(redis().command({"EXISTS", redis::job_meta(definition_.job_id)}).integer, 0);
}

}  // namespace
}  // namespace rowpump::test
