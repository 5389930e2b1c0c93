// PushPlan without a server: how a batch is grouped into commands (runs of one key, at most 1000 values
// each), the scores and tagged members of delayed tasks, and the specs it refuses.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "planned_commands.hpp"
#include "backend/redis/redis_delayed_member.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

using test::Command;
using test::commands_of;
using test::planned;

SinkSpec queue_spec(std::vector<std::string> priority_lists = {}) {
    SinkSpec spec;
    spec.queue = "jobs";
    spec.priority_lists = std::move(priority_lists);
    spec.redis_only.delayed_members = DelayedMembers::bare;
    return spec;
}

std::vector<Message> ready_messages(std::size_t count, int level = 0) {
    std::vector<Message> batch;
    for (std::size_t i = 0; i < count; ++i) batch.push_back({"m" + std::to_string(i), level, 0});
    return batch;
}

TEST(PushPlanTest, AnEmptyBatchPlansNoCommand) {
    EXPECT_EQ(planned(queue_spec(), {}), std::vector<Command>{});
    SinkSpec sidekiq = queue_spec();
    sidekiq.layout = QueueLayout::sidekiq;
    sidekiq.redis_only.delayed_members = DelayedMembers::tagged;
    EXPECT_EQ(planned(sidekiq, {}), std::vector<Command>{}) << "no SADD queues without a job";
}

TEST(PushPlanTest, OneMessageIsOnePush) {
    EXPECT_EQ(planned(queue_spec(), {{"only", 0, 0}}), (std::vector<Command>{{"RPUSH", "jobs", "only"}}));
    SinkSpec left = queue_spec();
    left.push = PushSide::left;
    EXPECT_EQ(planned(left, {{"only", 0, 0}}), (std::vector<Command>{{"LPUSH", "jobs", "only"}}));
}

TEST(PushPlanTest, EachRunOfOneKeyIsOneCommandInBatchOrder) {
    const auto commands = planned(queue_spec({"high", "low"}), {{"a", 0, 0},
                                                                {"b", 0, 0},
                                                                {"c", 1, 0},
                                                                {"d", 0, 0},
                                                                {"e", 1, 5000},
                                                                {"f", 0, 6000},
                                                                {"g", 1, 0},
                                                                {"h", 1, 0}});
    EXPECT_EQ(commands, (std::vector<Command>{{"RPUSH", "jobs:p:high", "a", "b"},
                                              {"RPUSH", "jobs:p:low", "c"},
                                              {"RPUSH", "jobs:p:high", "d"},
                                              {"ZADD", "jobs:delayed", "5000", "e", "6000", "f"},
                                              {"RPUSH", "jobs:p:low", "g", "h"}}));
}

TEST(PushPlanTest, ACommandCarriesAtMost1000Values) {
    const auto commands = planned(queue_spec(), ready_messages(2001));
    ASSERT_EQ(commands.size(), 3u);
    EXPECT_EQ(commands[0].size(), 1002u);
    EXPECT_EQ(commands[1].size(), 1002u);
    EXPECT_EQ(commands[2], (Command{"RPUSH", "jobs", "m2000"}));
    EXPECT_EQ(commands[0][2], "m0");
    EXPECT_EQ(commands[0][1001], "m999");
    EXPECT_EQ(commands[1][2], "m1000");
    EXPECT_EQ(planned(queue_spec(), ready_messages(1000)).size(), 1u) << "exactly 1000 values fit one command";
}

TEST(PushPlanTest, ADelayedCommandCarriesAtMost1000Arguments) {
    std::vector<Message> batch;
    for (std::int64_t i = 0; i < 1001; ++i) batch.push_back({"d" + std::to_string(i), 0, 1000 + i});
    const auto commands = planned(queue_spec(), batch);
    ASSERT_EQ(commands.size(), 3u) << "a score and a member are two arguments";
    EXPECT_EQ(commands[0].size(), 1002u);
    EXPECT_EQ(commands[0][2], "1000");
    EXPECT_EQ(commands[0][3], "d0");
    EXPECT_EQ(commands[1][2], "1500");
    EXPECT_EQ(commands[2], (Command{"ZADD", "jobs:delayed", "2000", "d1000"}));
}

TEST(PushPlanTest, ScoresInMillisecondsAndSecondsUpToThe64BitMaximum) {
    constexpr std::int64_t latest = std::numeric_limits<std::int64_t>::max();
    const std::vector<Message> batch{{"a", 0, 1}, {"b", 0, 1'700'000'000'250}, {"c", 0, 1'700'000'000'005},
                                     {"d", 0, 1'700'000'000'000}, {"e", 0, latest}};
    EXPECT_EQ(planned(queue_spec(), batch),
              (std::vector<Command>{{"ZADD", "jobs:delayed", "1", "a", "1700000000250", "b", "1700000000005", "c",
                                     "1700000000000", "d", "9223372036854775807", "e"}}));
    SinkSpec seconds = queue_spec();
    seconds.redis_only.delay_score = DelayScore::seconds;
    EXPECT_EQ(planned(seconds, batch),
              (std::vector<Command>{{"ZADD", "jobs:delayed", "0.001", "a", "1700000000.25", "b", "1700000000.005", "c",
                                     "1700000000", "d", "9223372036854775.807", "e"}}));
}

TEST(PushPlanTest, SidekiqScoresAlwaysCarryThreeDecimals) {
    SinkSpec sidekiq;
    sidekiq.queue = "default";
    sidekiq.layout = QueueLayout::sidekiq;
    const auto commands =
        planned(sidekiq, {{"a", 0, 1'700'000'000'250}, {"b", 0, std::numeric_limits<std::int64_t>::max()}});
    EXPECT_EQ(commands, (std::vector<Command>{{"ZADD", "schedule", "1700000000.250", "a", "9223372036854775.807", "b"}}));
}

TEST(PushPlanTest, DelayedMembersAreTaggedByTheirPositionInTheBatch) {
    SinkSpec tagged = queue_spec();
    tagged.redis_only.delayed_members = DelayedMembers::tagged;
    constexpr std::uint64_t writer = std::numeric_limits<std::uint64_t>::max();
    const auto commands = planned(tagged, {{"ready", 0, 0}, {"same", 0, 10}, {"same", 0, 10}}, {writer, 100});
    EXPECT_EQ(commands, (std::vector<Command>{{"RPUSH", "jobs", "ready"},
                                              {"ZADD", "jobs:delayed", "10", redis::delayed_member({writer, 101}, "same"),
                                               "10", redis::delayed_member({writer, 102}, "same")}}))
        << "equal payloads stay two tasks; a ready message takes no tag but keeps its position";
}

TEST(PushPlanTest, APlanIsRebuiltForEachBatch) {
    SinkSpec tagged = queue_spec();
    tagged.redis_only.delayed_members = DelayedMembers::tagged;
    redis::PushPlan plan(redis_queue_keys(tagged));
    plan.plan({{"first", 0, 1}, {"x", 0, 0}}, {1, 0});
    ASSERT_EQ(plan.commands(), 2u);
    plan.plan({{"second", 0, 2}}, {1, 5});
    EXPECT_EQ(commands_of(plan), (std::vector<Command>{{"ZADD", "jobs:delayed", "2", redis::delayed_member({1, 5}, "second")}}));
    EXPECT_THROW(plan.command(1), std::out_of_range);
}

TEST(PushPlanTest, KeysOfTheQueue) {
    redis::PushPlan plain(redis_queue_keys(queue_spec()));
    EXPECT_EQ(plain.ready_keys(), (std::vector<std::string>{"jobs"}));
    EXPECT_EQ(plain.delayed_key(), "jobs:delayed");
    SinkSpec named = queue_spec({"high", "low"});
    named.redis_only.list_key = "q:{queue}:{level}";
    named.redis_only.delayed_key = "later:{queue}";
    redis::PushPlan priorities(redis_queue_keys(named));
    EXPECT_EQ(priorities.ready_keys(), (std::vector<std::string>{"q:jobs:high", "q:jobs:low"}));
    EXPECT_EQ(priorities.delayed_key(), "later:jobs");
}

TEST(PushPlanTest, APriorityLevelWithoutAListIsRefused) {
    EXPECT_THROW(planned(queue_spec({"high", "low"}), {{"a", 2, 0}}), UsageError);
    EXPECT_THROW(planned(queue_spec({"high", "low"}), {{"a", -1, 0}}), UsageError);
    EXPECT_EQ(planned(queue_spec(), {{"a", 5, 0}}), (std::vector<Command>{{"RPUSH", "jobs", "a"}}))
        << "one list: every level goes to it";
}

TEST(PushPlanTest, RefusesSpecsThatWouldMisplaceRows) {
    EXPECT_THROW(redis::PushPlan{redis_queue_keys(queue_spec({"high", ""}))}, UsageError);
    EXPECT_THROW(redis::PushPlan{redis_queue_keys(queue_spec({"high", "high"}))}, UsageError);
    SinkSpec stray_template = queue_spec();
    stray_template.redis_only.list_key = "{queue}:{level}";
    EXPECT_THROW(redis::PushPlan{redis_queue_keys(stray_template)}, UsageError) << "a list key without priority lists";
    SinkSpec collision = queue_spec({"high", "delayed"});
    collision.redis_only.list_key = "{queue}:{level}";
    EXPECT_THROW(redis::PushPlan{redis_queue_keys(collision)}, UsageError) << "jobs:delayed as a priority list and the delayed set";
    collision.redis_only.delayed_key = "{queue}:later";
    EXPECT_NO_THROW(redis::PushPlan{redis_queue_keys(collision)});
}

}  // namespace
}  // namespace rowpump
