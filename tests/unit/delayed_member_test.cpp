// The tag that keeps identical delayed payloads apart (src/backend/redis/redis_delayed_member.hpp): its exact format, that
// stripping gives back every payload byte for byte (even one that looks like a tag), that untagged
// members pass unchanged, and that a push plan gives each delayed message of a batch its own member.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_push_plan.hpp"

namespace rowpump::redis {
namespace {

using namespace std::string_literals;

TEST(DelayedMemberTest, TheTagIsAFixedPrefixOfLowercaseHex) {
    EXPECT_EQ(delayed_member({0x1, 0xabcdef}, "k=7"), "rp1:000000000000000100000000" "00abcdef:k=7");
    EXPECT_EQ(delayed_member({~0ULL, 0}, ""), "rp1:ffffffffffffffff0000000000000000:");
    EXPECT_EQ(delayed_member({42, 42}, "x").size(), delayed_tag_size + 1);
}

TEST(DelayedMemberTest, StrippingGivesBackThePayloadByteForByte) {
    const std::vector<std::string> payloads{"", "7", "a,b\r\n\"c\"", "\0\xff\x01"s,
                                            // A payload that is itself a tagged member: only the outer tag goes.
                                            delayed_member({5, 6}, "inner"), "rp1:"};
    for (const std::string& payload : payloads)
        EXPECT_EQ(delayed_payload(delayed_member({0x0123456789abcdefULL, 99}, payload)), payload) << payload;
}

TEST(DelayedMemberTest, MembersWithoutAWellFormedTagPassUnchanged) {
    for (const std::string member : {"", "plain payload", "rp1:0123", "rp1:000000000000000100000000000000AB:x",
                                     "rp1:0000000000000001000000000000000g:x", "rp1:00000000000000010000000000000001-x",
                                     "rp2:00000000000000010000000000000001:x"})
        EXPECT_EQ(delayed_payload(member), member);
}

TEST(DelayedMemberTest, LedgerWritersAreStablePerJobAndRangeAndNeverZero) {
    EXPECT_EQ(ledger_delayed_writer("job", 3), ledger_delayed_writer("job", 3));
    EXPECT_NE(ledger_delayed_writer("job", 3), ledger_delayed_writer("job", 4));
    EXPECT_NE(ledger_delayed_writer("job1", 23), ledger_delayed_writer("job12", 3));
    EXPECT_NE(ledger_delayed_writer("", 0), 0u);
    EXPECT_NE(random_delayed_writer(), 0u);
    EXPECT_NE(random_delayed_writer(), random_delayed_writer());
}

TEST(DelayedMemberTest, APlanGivesEachDelayedMessageItsOwnMember) {
    SinkSpec spec;
    spec.queue = "q";
    PushPlan plan(redis_queue_keys(spec));
    std::vector<Message> batch;
    for (int i = 0; i < 2500; ++i) batch.push_back({i % 10 == 0 ? "ready" : "same", 0, i % 10 == 0 ? 0 : 1000 + i});
    plan.plan(batch, {7, 100});

    std::set<std::string> members;
    std::size_t delayed = 0;
    for (std::size_t c = 0; c < plan.commands(); ++c) {
        const auto command = plan.command(c);
        if (command[0] != "ZADD") continue;
        EXPECT_EQ(command[1], "q:delayed");
        for (std::size_t a = 3; a < command.size(); a += 2) {
            ++delayed;
            members.emplace(command[a]);
            EXPECT_EQ(delayed_payload(command[a]), "same");
        }
    }
    EXPECT_EQ(delayed, 2250u);
    EXPECT_EQ(members.size(), 2250u) << "identical payloads share a member";
    // Message i of the batch is sequence 100 + i: a batch planned again from the same start is the same.
    EXPECT_TRUE(members.count(delayed_member({7, 101}, "same")));
    EXPECT_FALSE(members.count(delayed_member({7, 100}, "same"))) << "message 0 is ready, not delayed";
}

}  // namespace
}  // namespace rowpump::redis
