// The stream backend without a server: the command an entry is added with (one XADD a message), and how a sink or a queue
// source is told apart from the lists by the push mode and the consumer group, with the bad input refused
// in one line (exit 2).
#include <gtest/gtest.h>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/redis/redis_backend.hpp"
#include "backend/redis_streams/redis_streams_backend.hpp"
#include "backend/redis_streams/stream_commands.hpp"
#include "backend/redis_streams/stream_target.hpp"
#include "backend/registry/registry.hpp"
#include "rowpump/consumer.hpp"
#include "error_of.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

using test::error_of;

std::vector<std::string> strings(std::span<const std::string_view> argv) {
    return {argv.begin(), argv.end()};
}

SinkSpec stream_spec(std::string uri = "redis://127.0.0.1:6379/0") {
    SinkSpec spec;
    spec.uri = std::move(uri);
    spec.queue = "orders";
    spec.push = PushSide::xadd;
    return spec;
}

TEST(StreamCommandsTest, EachMessageIsOneXaddOfItsPayload) {
    redis::StreamCommands commands("orders", 0);
    EXPECT_EQ(strings(commands.xadd(R"({"id":1})")), (std::vector<std::string>{"XADD", "orders", "*", "payload", R"({"id":1})"}));
    // The vector is reused: the next command carries only its own payload, even an empty one.
    EXPECT_EQ(strings(commands.xadd("")), (std::vector<std::string>{"XADD", "orders", "*", "payload", ""}));
}

TEST(StreamCommandsTest, AMaxlenGoesToEveryXadd) {
    redis::StreamCommands commands("s", 100000);
    EXPECT_EQ(strings(commands.xadd("p")), (std::vector<std::string>{"XADD", "s", "MAXLEN", "~", "100000", "*", "payload", "p"}));
    EXPECT_EQ(strings(commands.xadd("q")), (std::vector<std::string>{"XADD", "s", "MAXLEN", "~", "100000", "*", "payload", "q"}));
}

TEST(StreamCommandsTest, BinaryPayloadsGoAsTheyAre) {
    redis::StreamCommands commands("s", 0);
    const std::string payload("a\0b\xff", 4);
    const auto argv = commands.xadd(payload);
    EXPECT_EQ(argv.back().size(), 4u);
    EXPECT_EQ(std::string(argv.back()), payload);
}

TEST(StreamRegistryTest, XaddPicksTheStreamBackendOnEveryRedisScheme) {
    for (const char* uri : {"redis://127.0.0.1:6379/0", "rediss://h:6380/0", "redis+unix:///tmp/r.sock",
                            "redis-sentinel://127.0.0.1:26379/m/0"})
        EXPECT_EQ(&backend_for(stream_spec(uri)), &redis_streams_backend()) << uri;
    SinkSpec lists = stream_spec();
    lists.push = PushSide::right;
    EXPECT_EQ(&backend_for(lists), &redis_backend());
    SinkSpec typed = SinkSpec::redis(RedisOptions{}, "orders");
    typed.push = PushSide::xadd;
    EXPECT_EQ(&backend_for(typed), &redis_streams_backend());
}

TEST(StreamRegistryTest, XaddOnAnotherSinkIsRefusedInOneLine) {
    for (const char* uri : {"stdout", "file:/tmp/x.ndjson", "mysql://u@127.0.0.1:3306/db", "redis-cluster://127.0.0.1:7000/"}) {
        const std::string message = error_of<UsageError>([&] { backend_for(stream_spec(uri)); });
        EXPECT_NE(message.find("--push xadd"), std::string::npos) << message;
        EXPECT_NE(message.find("use a redis://"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
}

TEST(StreamRegistryTest, AConsumerGroupPicksTheStreamBackend) {
    QueueSource source = QueueSource::from_url("redis://127.0.0.1:6379/0", "orders");
    EXPECT_EQ(&backend_for(source), &redis_backend());
    source.stream_group = "billing";
    EXPECT_EQ(&backend_for(source), &redis_streams_backend());
    QueueSource table = QueueSource::from_url("mysql://u@127.0.0.1:3306/db", "jobs");
    table.stream_group = "billing";
    EXPECT_NE(error_of<UsageError>([&] { backend_for(table); }).find("--group"), std::string::npos);
}

TEST(StreamTargetTest, WhatAStreamCannotHonourIsRefused) {
    SinkSpec priority = stream_spec();
    priority.priority_lists = {"high", "low"};
    EXPECT_NE(error_of<UsageError>([&] { stream_target(priority); }).find("no priority lists"), std::string::npos);
    SinkSpec names = stream_spec();
    names.redis_only.delayed_key = "{queue}:later";
    EXPECT_NE(error_of<UsageError>([&] { stream_target(names); }).find("--delayed-key"), std::string::npos);
    SinkSpec sidekiq = stream_spec();
    sidekiq.layout = QueueLayout::sidekiq;
    EXPECT_NE(error_of<UsageError>([&] { stream_target(sidekiq); }).find("read lists, not streams"), std::string::npos);
    SinkSpec no_queue = stream_spec();
    no_queue.queue.clear();
    EXPECT_NE(error_of<UsageError>([&] { stream_target(no_queue); }).find("--queue"), std::string::npos);
    SinkSpec fine = stream_spec();
    fine.redis_only.stream_maxlen = 5;
    EXPECT_EQ(stream_target(fine).maxlen, 5u);
    EXPECT_EQ(stream_target(fine).redis.keys.queue, "orders");
}

}  // namespace
}  // namespace rowpump
