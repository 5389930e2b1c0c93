// The Redis Cluster pieces that need no server: key slots (the cluster specification's examples), the
// redirections read from an error, the cluster URL, and the queue names refused because their keys would
// land in several slots.
#include <gtest/gtest.h>

#include <string>

#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "redis/cluster_client.hpp"
#include "redis/cluster_options.hpp"
#include "redis/cluster_slot.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

TEST(ClusterSlotTest, KeySlotsAreTheSpecificationsCrc16) {
    // CRC16/XMODEM("123456789") is 0x31C3, the check value of the specification's reference code.
    EXPECT_EQ(redis::key_slot("123456789"), 0x31C3 % 16384);
    EXPECT_EQ(redis::key_slot("foo"), 12182);
    EXPECT_EQ(redis::key_slot("bar"), 5061);
    EXPECT_EQ(redis::key_slot(""), 0);
}

TEST(ClusterSlotTest, HashTagsFollowTheSpecification) {
    EXPECT_EQ(redis::key_slot("{user1000}.following"), redis::key_slot("{user1000}.followers"));
    EXPECT_EQ(redis::key_slot("{user1000}.following"), redis::key_slot("user1000"));
    EXPECT_EQ(redis::hash_tag("foo{}{bar}"), "foo{}{bar}");  // an empty first tag: the whole key
    EXPECT_EQ(redis::hash_tag("foo{{bar}}zap"), "{bar");
    EXPECT_EQ(redis::hash_tag("foo{bar}{zap}"), "bar");
    EXPECT_EQ(redis::hash_tag("foo{bar"), "foo{bar");  // no closing brace
}

TEST(ClusterSlotTest, RedirectionsAreReadFromTheConnectionsError) {
    const auto moved = redis::find_redirect("Redis at redis://127.0.0.1:6501/0 answered: MOVED 3999 127.0.0.1:6502");
    ASSERT_TRUE(moved);
    EXPECT_FALSE(moved->ask);
    EXPECT_EQ(moved->slot, 3999);
    EXPECT_EQ(moved->host, "127.0.0.1");
    EXPECT_EQ(moved->port, 6502u);
    const auto ask = redis::find_redirect("job j: Redis at x answered: ASK 12 10.0.0.5:7000");
    ASSERT_TRUE(ask);
    EXPECT_TRUE(ask->ask);
    EXPECT_EQ(ask->host, "10.0.0.5");
    EXPECT_EQ(ask->port, 7000u);
    EXPECT_FALSE(redis::find_redirect("Redis at x answered: WRONGTYPE Operation against a key"));
    EXPECT_FALSE(redis::find_redirect("Redis at x answered: MOVED 99999 127.0.0.1:6502"));  // no such slot
    EXPECT_FALSE(redis::find_redirect("REMOVED 12 127.0.0.1:6502"));
}

TEST(ClusterSlotTest, ClusterUrlNamesSeedsWithOneLogin) {
    const auto options = redis::ClusterOptions::from_url("redis-cluster://app:secret@10.0.0.1:7000,10.0.0.2:7001/");
    ASSERT_EQ(options.seeds.size(), 2u);
    EXPECT_EQ(options.seeds[1].host, "10.0.0.2");
    EXPECT_EQ(options.seeds[1].port, 7001u);
    EXPECT_EQ(options.seeds[1].user, "app");
    EXPECT_EQ(options.seeds[1].password, "secret");
    EXPECT_EQ(options.redacted(), "redis-cluster://app:***@10.0.0.1:7000,10.0.0.2:7001/");
    EXPECT_EQ(options.node("10.0.0.9", 7005).port, 7005u);
    EXPECT_EQ(redis::ClusterOptions::from_url("redis-cluster://h:1").seeds.size(), 1u);
}

TEST(ClusterSlotTest, MalformedClusterUrlsAreRefused) {
    for (const char* url : {"redis-cluster://h:1/2", "redis-cluster://h/", "redis-cluster://h:1,,h:2/",
                            "redis-cluster://h:1/?socket=x", "redis://h:1/"}) {
        try {
            redis::ClusterOptions::from_url(url);
            ADD_FAILURE() << url << " was accepted";
        } catch (const UsageError& error) {
            EXPECT_NE(std::string(error.what()).find("expected redis-cluster://"), std::string::npos) << error.what();
        }
    }
}

SinkSpec queue(const std::string& name, std::vector<std::string> levels = {}) {
    SinkSpec spec;
    spec.queue = name;
    spec.priority_lists = std::move(levels);
    return spec;
}

TEST(ClusterSlotTest, AQueueWithAHashTagKeepsEveryKeyInItsSlot) {
    const SinkSpec spec = queue("{orders}", {"high", "low"});
    const redis::PushPlan plan(redis_queue_keys(spec));
    EXPECT_EQ(redis::queue_slot(redis_queue_keys(spec), plan), redis::key_slot("orders"));
    EXPECT_EQ(redis::cluster_state_prefix("rowpump:job:", "{orders}", redis::key_slot("orders")),
              "rowpump:job:{orders}:");
    EXPECT_EQ(redis::cluster_state_prefix("app:{orders}:", "{orders}", redis::key_slot("orders")), "app:{orders}:");
}

TEST(ClusterSlotTest, NamesSpreadOverSlotsAreRefusedWithWhatToChange) {
    const SinkSpec plain = queue("orders");
    try {
        redis::queue_slot(redis_queue_keys(plain), redis::PushPlan(redis_queue_keys(plain)));
        ADD_FAILURE() << "an untagged queue was accepted";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("e.g. --queue '{orders}'"), std::string::npos) << error.what();
    }
    SinkSpec templated = queue("{orders}", {"high"});
    templated.redis_only.list_key = "{level}:tasks";  // the level's braces are the tag: another slot
    try {
        redis::queue_slot(redis_queue_keys(templated), redis::PushPlan(redis_queue_keys(templated)));
        ADD_FAILURE() << "a list key without the queue's tag was accepted";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("--list-key"), std::string::npos) << error.what();
    }
    try {
        redis::cluster_state_prefix("app:", "{orders}", redis::key_slot("orders"));
        ADD_FAILURE() << "a state prefix without the tag was accepted";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("--state-prefix 'rowpump:job:{orders}:'"), std::string::npos)
            << error.what();
    }
}

}  // namespace
}  // namespace rowpump
