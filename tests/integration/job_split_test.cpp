// Splitting a leased range in the job store (work stealing with a job id), in both stores: the split is
// fenced on the owner's checkpoint and upper bound as the thief read them, and the owner's next page,
// fenced on its upper bound, is refused whole after a split and tells the owner its new bound.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "backend/registry/registry.hpp"
#include "checkpoint/job_store.hpp"
#include "integration/job_store_fixture.hpp"
#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "integration/redis_fixture.hpp"

namespace rowpump::test {
namespace {

enum class Store { redis, mysql };

std::string store_name(const ::testing::TestParamInfo<Store>& info) {
    return info.param == Store::redis ? "Redis" : "MySql";
}

KeyValue key(std::int64_t id) { return KeyValue{id}; }

// The source's answer to "is this newer checkpoint still before the split key 500?", for these tests.
bool below_500(const KeyValue& checkpoint) { return std::get<std::int64_t>(checkpoint.at(0)) < 500; }

class JobSplitTest : public Prepared<MySqlTest>, public ::testing::WithParamInterface<Store> {
protected:
    void prepare() override {
        const auto url = redis_url_from_env();
        if (!url) FAIL() << start_redis_hint;
        redis_.emplace(RedisOptions::from_url(*url));
        const std::string pid = std::to_string(::getpid());
        if (GetParam() == Store::redis) {
            sink_.uri = *url;
            sink_.queue = "rp_test:split.q:" + pid;
        } else {
            sink_.uri = std::getenv("ROWPUMP_MYSQL_URL");
            sink_.queue = "rp_test_split_q_" + pid;
        }
        definition_ = id_keyed_job("rp_test_split_" + pid);
        clean_up();
    }
    void TearDown() override {
        if (redis_) clean_up();
        MySqlTest::TearDown();
    }

    // One range [start, 1000) of about 100 rows.
    std::unique_ptr<JobStore> store_with_one_range() {
        auto store = open_job_store(sink_, definition_);
        Partition part;
        part.range.hi = key(1000);
        part.estimated_rows = 100;
        store->create({part});
        return store;
    }

    // A store of one range, its owner having written ids 1 and 2, and a thief that has read the range.
    struct OwnerAndThief {
        std::unique_ptr<JobStore> store;
        std::unique_ptr<JobLedger> owner;
        std::unique_ptr<JobLedger> thief;
        std::optional<StoredRange> range;     // the owner's lease
        std::vector<StoredRange> leased;      // as the thief read it
    };
    OwnerAndThief owner_and_thief() {
        OwnerAndThief job;
        job.store = store_with_one_range();
        job.owner = job.store->open_ledger();
        job.thief = job.store->open_ledger();
        job.range = job.owner->lease();
        EXPECT_TRUE(job.range);
        if (!job.range) return job;
        EXPECT_EQ(job.owner->write(*job.range, page(1, 2), key(2)), PageWrite::written);
        job.leased = job.thief->pending_ranges();
        EXPECT_EQ(job.leased.size(), 1u);
        return job;
    }

    static std::vector<Message> page(int first, int count) {
        std::vector<Message> out;
        for (int id = first; id < first + count; ++id) out.push_back(Message{"{\"id\":" + std::to_string(id) + "}"});
        return out;
    }

    std::vector<std::string> queued_ids() {
        const auto payloads = GetParam() == Store::redis ? list_items(*redis_, sink_.queue)
                                                         : queue_payloads(tables().connection(), sink_.queue);
        return payload_keys(payloads, {"id"});
    }

    void clean_up() {
        redis_->command({"DEL", sink_.queue});
        delete_keys(*redis_, "rowpump:job:" + definition_.job_id + ":*");
        drop_mysql_job(tables(), sink_.queue, definition_.job_id);
    }

    std::optional<redis::Connection> redis_;
    SinkSpec sink_;
    JobDefinition definition_;
};

TEST_P(JobSplitTest, ASplitRefusesTheOwnersNextPageAndHandsTheUpperPartToTheThief) {
    auto [store, owner, thief, range, leased] = owner_and_thief();
    ASSERT_FALSE(HasFailure());
    EXPECT_EQ(leased[0].last_key, key(2));
    EXPECT_NE(leased[0].owner, 0u);
    EXPECT_EQ(leased[0].remaining_estimate(), 98u);
    const auto taken = thief->split(leased[0], key(500), 40, below_500);
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->number, 1u);
    EXPECT_EQ(taken->range.lo, key(500));
    EXPECT_EQ(taken->range.hi, key(1000));
    EXPECT_FALSE(taken->last_key);
    EXPECT_TRUE(thief->pending_ranges().size() == 1 && thief->pending_ranges()[0].number == 0)
        << "the new range is the thief's own lease, not one it could split";

    // The owner read past the split key before it knew: that page is refused whole.
    ASSERT_EQ(owner->write(*range, page(3, 600), key(602)), PageWrite::shrunk);
    EXPECT_EQ(range->range.hi, key(500));
    EXPECT_EQ(range->last_key, key(2));
    EXPECT_EQ(queued_ids().size(), 2u) << "a refused page reached the queue";
    // Read again below the new bound, it is written; the thief writes the upper part.
    ASSERT_EQ(owner->write(*range, page(3, 497), key(499)), PageWrite::written);
    auto upper = *taken;
    ASSERT_EQ(thief->write(upper, page(500, 500), key(999)), PageWrite::written);
    EXPECT_TRUE(owner->complete(*range));
    EXPECT_TRUE(thief->complete(upper));

    const JobState state = store->state();
    EXPECT_EQ(state.ranges, 2u);
    EXPECT_TRUE(state.finished());
    EXPECT_EQ(state.rows_written, 999u);
    EXPECT_EQ(state.estimated_rows, 100u) << "the split moves the estimate, it does not add rows";
    std::vector<std::string> expected;
    for (int id = 1; id <= 999; ++id) expected.push_back(std::to_string(id));
    EXPECT_EQ(multiset_difference(queued_ids(), expected), "");
}

TEST_P(JobSplitTest, ASplitWhoseVictimMovedOnChangesNothing) {
    auto [store, owner, thief, range, leased] = owner_and_thief();
    ASSERT_FALSE(HasFailure());
    // The owner commits a page after the thief read its checkpoint: the split key the thief computed from
    // it may lie below what the owner wrote now.
    ASSERT_EQ(owner->write(*range, page(3, 598), key(600)), PageWrite::written);
    EXPECT_FALSE(thief->split(leased[0], key(500), 40, below_500));
    const JobState state = store->state();
    EXPECT_EQ(state.ranges, 1u);
    ASSERT_EQ(state.range_states.size(), 1u);
    EXPECT_EQ(state.range_states[0].stored.range.hi, key(1000));
    EXPECT_EQ(owner->write(*range, page(601, 2), key(602)), PageWrite::written);
    EXPECT_EQ(queued_ids().size(), 602u);
}

// MySQL waits for the owner's page transaction and asks the source about the owner's newer checkpoint
// under the range's lock; Redis fences on the checkpoint as read, and the thief looks again.
TEST_P(JobSplitTest, ANewerCheckpointStillBeforeTheSplitKeyKeepsTheSplitInMySqlOnly) {
    auto [store, owner, thief, range, leased] = owner_and_thief();
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(owner->write(*range, page(3, 2), key(4)), PageWrite::written);
    const auto taken = thief->split(leased[0], key(500), 40, below_500);
    EXPECT_EQ(taken.has_value(), GetParam() == Store::mysql);
    EXPECT_EQ(owner->write(*range, page(5, 2), key(6)), taken ? PageWrite::shrunk : PageWrite::written);
}

INSTANTIATE_TEST_SUITE_P(Stores, JobSplitTest, ::testing::Values(Store::redis, Store::mysql), store_name);

}  // namespace
}  // namespace rowpump::test
