// A queue spread over shards (--shards N): the shards' names and slots, the names refused, and how the
// producer's balance spreads pages of any size over the shards.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_shards.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_shards.hpp"
#include "redis/cluster_slot.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

TEST(RedisShardsTest, ShardsAreTaggedQueuesOfTheBaseName) {
    EXPECT_EQ(redis::shard_queues("orders", 3), (std::vector<std::string>{"{orders:0}", "{orders:1}", "{orders:2}"}));
    // A cluster queue's own tag is the base name: {orders} and orders make the same shards.
    EXPECT_EQ(redis::shard_queues("{orders}", 2), redis::shard_queues("orders", 2));
    EXPECT_EQ(redis::shard_queue("a.b", 1023), "{a.b:1023}");
}

TEST(RedisShardsTest, EveryKeyOfAShardSharesItsSlotAndShardsGetTheirOwnSlots) {
    RedisQueueKeys keys;
    keys.queue = "orders";
    keys.priority_lists = {"high", "low"};
    keys.list_key = "{queue}:p:{level}";
    keys.delayed_key = "{queue}:delayed";
    const std::vector<RedisQueueKeys> shards = shard_keys(keys, 4);
    ASSERT_EQ(shards.size(), 4u);
    std::set<std::uint16_t> slots;
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const redis::PushPlan plan(shards[i]);
        const std::uint16_t slot = redis::queue_slot(shards[i], plan);
        EXPECT_EQ(slot, redis::key_slot("orders:" + std::to_string(i)));
        EXPECT_EQ(plan.ready_keys().front(), "{orders:" + std::to_string(i) + "}:p:high");
        slots.insert(slot);
    }
    EXPECT_EQ(slots.size(), 4u) << "two shards share a slot";
}

TEST(RedisShardsTest, BadCountsAndNamesAreRefusedInOneLine) {
    for (const std::size_t count : {std::size_t{0}, redis::max_shards + 1}) {
        try {
            redis::shard_queues("q", count);
            ADD_FAILURE() << count << " shards accepted";
        } catch (const UsageError& error) {
            EXPECT_NE(std::string(error.what()).find("--shards must be 1 to 1024"), std::string::npos) << error.what();
        }
    }
    EXPECT_THROW(redis::shard_queues("{}", 2), UsageError);
    EXPECT_THROW(redis::shard_queues("", 2), UsageError);
    EXPECT_THROW(redis::shard_queues("a{b}", 2), UsageError);
    EXPECT_THROW(redis::shard_queues("{a}{b}", 2), UsageError);
    EXPECT_NO_THROW(redis::shard_queues("q", redis::max_shards));
}

TEST(RedisShardsTest, JobsAndWorkerFormatsAreRefused) {
    RedisQueueKeys keys;
    keys.queue = "q";
    keys.list_key = "{queue}:p:{level}";
    keys.delayed_key = "{queue}:delayed";
    EXPECT_NO_THROW(check_shard_names(keys, 4, false));
    EXPECT_THROW(check_shard_names(keys, 4, true), UsageError);
    keys.layout = QueueLayout::sidekiq;
    EXPECT_THROW(check_shard_names(keys, 4, false), UsageError);
}

TEST(RedisShardsTest, EqualPagesVisitEveryShardInTurn) {
    redis::ShardBalance balance(4);
    std::vector<std::size_t> order;
    for (int page = 0; page < 8; ++page) order.push_back(balance.place(100));
    for (std::size_t first = 0; first < order.size(); first += 4) {
        const std::set<std::size_t> round(order.begin() + static_cast<long>(first), order.begin() + static_cast<long>(first) + 4);
        EXPECT_EQ(round.size(), 4u) << "a round of 4 equal pages missed a shard";
    }
}

TEST(RedisShardsTest, PagesOfVaryingSizeStayWithinOnePageOfEachOther) {
    redis::ShardBalance balance(4);
    std::vector<std::uint64_t> rows(4, 0);
    std::uint64_t largest = 0;
    for (std::uint64_t page = 0; page < 1000; ++page) {
        const std::uint64_t size = 1 + (page * 7919) % 500;  // 1 to 500 rows, in no order
        largest = std::max(largest, size);
        rows[balance.place(size)] += size;
    }
    const auto [low, high] = std::minmax_element(rows.begin(), rows.end());
    EXPECT_LE(*high - *low, largest) << "shards apart by more than one page";
    const double mean = static_cast<double>(std::accumulate(rows.begin(), rows.end(), std::uint64_t{0})) / 4;
    for (const std::uint64_t shard : rows) EXPECT_NEAR(static_cast<double>(shard), mean, mean * 0.01);
}

TEST(RedisShardsTest, ConcurrentSinksShareOneBalance) {
    const auto first = redis::balance_for("cluster", "q", 4);
    EXPECT_EQ(first, redis::balance_for("cluster", "q", 4));
    EXPECT_NE(first, redis::balance_for("cluster", "other", 4));
    std::vector<std::uint64_t> rows(4, 0);
    std::mutex mutex;
    std::vector<std::thread> workers;
    for (int worker = 0; worker < 4; ++worker)
        workers.emplace_back([&] {
            for (int page = 0; page < 500; ++page) {
                const std::size_t shard = first->place(50);
                const std::lock_guard lock(mutex);
                rows[shard] += 50;
            }
        });
    for (std::thread& worker : workers) worker.join();
    const auto [low, high] = std::minmax_element(rows.begin(), rows.end());
    EXPECT_EQ(std::accumulate(rows.begin(), rows.end(), std::uint64_t{0}), 4u * 500 * 50);
    // Racing workers can each pick the same shard before adding: at most one page each.
    EXPECT_LE(*high - *low, 4u * 50);
}

}  // namespace
}  // namespace rowpump
