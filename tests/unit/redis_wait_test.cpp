// --redis-wait N[:timeout_ms] (sink.redis_wait in a job file): its value, the one line a bad value gets
// (the option spelled as the front end spells it), and the sinks it applies to: a single Redis server,
// however it is reached, and no other. No server.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "backend/redis/redis_wait.hpp"
#include "backend/registry/registry.hpp"
#include "config/option_checks.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

using namespace std::chrono_literals;

SinkSpec parsed(const std::string& text) {
    SinkSpec sink;
    redis::parse_redis_wait(text, sink);
    return sink;
}

TEST(RedisWait, ReplicasAndAnOptionalTimeout) {
    EXPECT_EQ(parsed("1").redis_only.wait_replicas, 1U);
    EXPECT_EQ(parsed("1").redis_only.wait_timeout, 1000ms);
    EXPECT_EQ(parsed("2:250").redis_only.wait_replicas, 2U);
    EXPECT_EQ(parsed("2:250").redis_only.wait_timeout, 250ms);
    EXPECT_EQ(parsed("0").redis_only.wait_replicas, 0U);
}

TEST(RedisWait, ABadValueNamesTheOptionAsEachFrontEndSpellsIt) {
    for (const char* bad : {"", "x", "-1", "1:", "1:0", "1:3600001", "1001", "1:2:3", ":100", "1.5"}) {
        SCOPED_TRACE(bad);
        try {
            parsed(bad);
            ADD_FAILURE() << "accepted";
        } catch (const config::OptionError& error) {
            EXPECT_EQ(error.render(config::Spelling::cli).rfind("invalid --redis-wait '" + std::string(bad) + "'", 0),
                      0U)
                << error.what();
            EXPECT_EQ(error.render(config::Spelling::yaml).rfind("invalid sink.redis_wait '", 0), 0U) << error.what();
            EXPECT_NE(std::string(error.what()).find("N[:timeout_ms]"), std::string::npos) << error.what();
            EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
        }
    }
}

// The sinks whose backend waits for replicas: the Redis backend, whichever way it reaches its server.
TEST(RedisWait, AppliesToOneRedisServerHoweverItIsReached) {
    for (const char* uri : {"redis://127.0.0.1:6379/0", "rediss://cache:6380/0", "redis+unix:///run/redis.sock?db=0",
                            "redis-sentinel://s1:26379,s2:26379/main/0"}) {
        SinkSpec sink = parsed("1");
        sink.uri = uri;
        EXPECT_NO_THROW(config::check_redis_wait_applies(sink, backend_for(sink).traits().waits_for_replicas)) << uri;
    }
    for (const char* uri : {"stdout", "file:/tmp/out.ndjson", "mysql://u@127.0.0.1/db",
                            "redis-cluster://127.0.0.1:6501,127.0.0.1:6502/"}) {
        SinkSpec sink = parsed("1");
        sink.uri = uri;
        try {
            config::check_redis_wait_applies(sink, backend_for(sink).traits().waits_for_replicas);
            ADD_FAILURE() << uri << " was accepted";
        } catch (const config::OptionError& error) {
            EXPECT_EQ(std::string(error.what()),
                      "--redis-wait makes each page wait for the replicas of a Redis server, and " + std::string(uri) +
                          " is not one (redis://, rediss://, redis+unix:// or redis-sentinel://): remove --redis-wait");
        }
    }
    // Not given: nothing to refuse.
    SinkSpec sink;
    sink.uri = "stdout";
    EXPECT_NO_THROW(config::check_redis_wait_applies(sink, false));
}

TEST(RedisWait, AJobFileGivesItAsSinkRedisWait) {
    const test::TempFile job("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\nsink:\n"
                             "  uri: redis-sentinel://127.0.0.1:26490/rowpump/0\n  queue: q\n  redis_wait: '1:500'\n",
                             ".yaml");
    const JobSpec spec = load_job(job.path());
    EXPECT_EQ(spec.sink.redis_only.wait_replicas, 1U);
    EXPECT_EQ(spec.sink.redis_only.wait_timeout, 500ms);
    const test::TempFile cluster("source:\n  mysql: mysql://app@127.0.0.1/shop\n  table: orders\nsink:\n"
                                 "  uri: redis-cluster://127.0.0.1:6501/\n  queue: '{q}'\n  redis_wait: 1\n",
                                 ".yaml");
    try {
        load_job(cluster.path());
        ADD_FAILURE() << "a cluster sink took sink.redis_wait";
    } catch (const ConfigError& error) {
        EXPECT_EQ(std::string(error.what()),
                  cluster.path() + ":7:15: sink.redis_wait makes each page wait for the replicas of a Redis server, "
                                   "and redis-cluster://127.0.0.1:6501/ is not one (redis://, rediss://, redis+unix:// "
                                   "or redis-sentinel://): remove sink.redis_wait");
    }
}

}  // namespace
}  // namespace rowpump
