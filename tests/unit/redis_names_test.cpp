// Redis key names that fit existing consumers (docs/payloads-and-names.md): key templates, the delayed
// set's score unit and bare members, and the job-state prefix. No server: the push plan shows the keys,
// scores and members a batch is written with.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "error_of.hpp"
#include "goods_names.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {
namespace {

using test::error_of;
using test::thrown;

TEST(RedisNamesTest, KeyTemplatesExpandQueueLevelAndBraces) {
    EXPECT_EQ(list_key("goods:{level}:task", "orders", "high"), "goods:high:task");
    EXPECT_EQ(list_key(default_list_key, "orders", "high"), "orders:p:high");
    EXPECT_EQ(list_key("{{{queue}}}:{level}", "orders", "low"), "{orders}:low") << "a cluster hash tag";
    EXPECT_EQ(delayed_key("goods:delay", "orders"), "goods:delay");
    EXPECT_EQ(delayed_key(default_delayed_key, "orders"), "orders:delayed");
}

TEST(RedisNamesTest, BadKeyTemplatesSayWhereAndWhat) {
    EXPECT_EQ(error_of<UsageError>([] { list_key("goods:{lvl}:task", "q", "high"); }),
              "list key 'goods:{lvl}:task': unknown placeholder {lvl} at position 7: expected {queue} or {level}");
    EXPECT_EQ(error_of<UsageError>([] { delayed_key("{queue}:{level}", "q"); }),
              "delayed key '{queue}:{level}': unknown placeholder {level} at position 9: expected {queue}");
    EXPECT_EQ(error_of<UsageError>([] { list_key("goods:{level", "q", "high"); }),
              "list key 'goods:{level': '{' without its '}' at position 7: close the placeholder, or write {{ or }} "
              "for a literal brace");
    EXPECT_NE(error_of<UsageError>([] { list_key("goods:task", "q", "high"); }).find("has no {level}"), std::string::npos);
}

TEST(RedisNamesTest, StatePrefixIsChecked) {
    EXPECT_FALSE(thrown<UsageError>([] { check_state_prefix("app:rowpump:"); }));
    EXPECT_NE(error_of<UsageError>([] { check_state_prefix(""); }).find("0 bytes"), std::string::npos);
    EXPECT_NE(error_of<UsageError>([] { check_state_prefix("a b"); }).find("position 2"), std::string::npos);
    EXPECT_NE(error_of<UsageError>([] { check_state_prefix("app*"); }).find("glob character '*' at position 4"), std::string::npos);
    EXPECT_EQ(job_meta("app:", "j1"), "app:j1:meta");
    EXPECT_EQ(job_range("app:", "j1", 3), "app:j1:range:3");
    EXPECT_EQ(job_meta("j1"), "rowpump:job:j1:meta");
}

TEST(RedisNamesTest, APlanWritesTheTemplatedKeysSecondsAndBareMembers) {
    PushPlan plan(redis_queue_keys(test::goods_names("orders")));
    EXPECT_EQ(plan.ready_keys(), (std::vector<std::string>{"goods:high:task", "goods:low:task"}));
    plan.plan({{"1", 1, 0}, {"2", 0, 1700000000250}, {"3", 0, 1700000001000}}, {7, 0});
    ASSERT_EQ(plan.commands(), 2u);
    EXPECT_EQ(std::vector<std::string_view>(plan.command(0).begin(), plan.command(0).end()),
              (std::vector<std::string_view>{"RPUSH", "goods:low:task", "1"}));
    EXPECT_EQ(std::vector<std::string_view>(plan.command(1).begin(), plan.command(1).end()),
              (std::vector<std::string_view>{"ZADD", "goods:delay", "1700000000.25", "2", "1700000001", "3"}));
}

TEST(RedisNamesTest, KeysThatCannotWorkAreRefused) {
    SinkSpec spec;
    spec.queue = "q";
    spec.redis_only.list_key = "goods:{level}:task";
    EXPECT_NE(error_of<UsageError>([&] { PushPlan plan(redis_queue_keys(spec)); }).find("no priority levels are given"), std::string::npos);
    spec.priority_lists = {"delay", "low"};
    spec.redis_only.delayed_key = "goods:delay:task";
    EXPECT_NE(error_of<UsageError>([&] { PushPlan plan(redis_queue_keys(spec)); }).find("both a priority list and the delayed set"), std::string::npos);
}

}  // namespace
}  // namespace rowpump::redis
