// The one grammar of sink and queue-source URIs (the backend registry, src/backend/registry.cpp) and the typed
// targets beside it (SinkSpec::redis, SinkSpec::mysql; src/backend/sink_target.hpp). No server: nothing here
// connects.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "rowpump/consumer.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"
#include "backend/registry/registry.hpp"
#include "backend/file/file_backend.hpp"
#include "backend/mysql_queue/mysql_queue_backend.hpp"
#include "backend/redis/redis_backend.hpp"
#include "backend/sink_target.hpp"
#include "unit_helpers.hpp"
#include "url.hpp"

namespace rowpump {
namespace {

std::string usage_error(TargetRole role, const std::string& uri) {
    try {
        backend_for_uri(uri, role);
    } catch (const UsageError& error) {
        return error.what();
    }
    ADD_FAILURE() << "no UsageError for '" << uri << "'";
    return {};
}

TEST(TargetGrammar, EverySinkFormHasItsBackend) {
    EXPECT_EQ(&backend_for_uri("stdout", TargetRole::sink), &stdout_backend());
    EXPECT_EQ(&backend_for_uri("file:out.ndjson", TargetRole::sink), &file_backend());
    EXPECT_EQ(&backend_for_uri("file:///tmp/out.ndjson", TargetRole::sink), &file_backend());
    EXPECT_EQ(&backend_for_uri("redis://127.0.0.1:6379/0", TargetRole::sink), &redis_backend());
    EXPECT_EQ(&backend_for_uri("rediss://cache:6380/0", TargetRole::sink), &redis_backend());
    EXPECT_EQ(&backend_for_uri("redis+unix:///run/redis.sock?db=0", TargetRole::sink), &redis_backend());
    EXPECT_EQ(&backend_for_uri("redis-sentinel://s1:26379,s2:26379/main/0", TargetRole::sink), &redis_backend());
    EXPECT_EQ(&backend_for_uri("mysql://u@127.0.0.1/db", TargetRole::sink), &mysql_queue_backend());
    EXPECT_EQ(&backend_for_uri("mariadb://u@127.0.0.1/db", TargetRole::sink), &mysql_queue_backend());
}

// `queue --source` refused mariadb:// while sinks and job stores took it.
TEST(TargetGrammar, QueueSourcesTakeTheSameServerSchemesAsSinks) {
    for (const char* uri : {"redis://127.0.0.1:6379/0", "rediss://cache:6380/0", "redis+unix:///run/redis.sock?db=0",
                            "redis-sentinel://s1:26379,s2:26379/main/0", "mysql://u@127.0.0.1/db",
                            "mariadb://u@127.0.0.1/db"})
        EXPECT_EQ(&backend_for_uri(uri, TargetRole::queue_source), &backend_for_uri(uri, TargetRole::sink)) << uri;
}

// A queue source's URL is read by the Redis backend whichever way it reaches the server: the consumers then
// open the same kind of connection as the sink (TLS, a unix socket, the master the sentinels name).
TEST(TargetGrammar, QueueSourcesOverTlsSocketsAndSentinelsAreTypedByTheRedisBackend) {
    const auto typed = [](const std::string& url) {
        QueueSource source;
        source.url = url;
        source.queue = "q";
        return std::get<RedisOptions>(typed_source(source).connection);
    };
    const test::TempFile ca("a CA, read only when a connection opens", ".pem");  // the URL's file must exist
    const RedisOptions tls = typed("rediss://cache:6380/2?ssl-mode=VERIFY_CA&ssl-ca=" + ca.path());
    EXPECT_TRUE(tls.tls);
    EXPECT_EQ(tls.ssl_mode, SslMode::verify_ca);
    EXPECT_EQ(tls.ssl_ca, ca.path());
    EXPECT_EQ(tls.db, 2);
    EXPECT_EQ(typed("redis+unix:///run/redis.sock?db=3").socket, "/run/redis.sock");
    const RedisOptions sentinel = typed("redis-sentinel://s1:26379,s2:26380/main/1");
    EXPECT_EQ(sentinel.master_name, "main");
    ASSERT_EQ(sentinel.sentinels.size(), 2U);
    EXPECT_EQ(sentinel.sentinels[1], (std::pair<std::string, unsigned>{"s2", 26380}));
    EXPECT_EQ(sentinel.db, 1);
}

TEST(TargetGrammar, AnUnknownSchemeIsOneLineNamingTheAcceptedForms) {
    for (const char* uri : {"", "ftp://host/x", "memcache://127.0.0.1:6379/0", "kafka://broker", "stdout2", "/tmp/x",
                            "MySQL://u@h/db", "redis:/h"}) {
        EXPECT_EQ(usage_error(TargetRole::sink, uri),
                  "unsupported sink '" + std::string(uri) +
                      "': expected stdout, file:PATH, redis://[user:pass@]host:port/db (or rediss://, redis+unix://, "
                      "redis-sentinel://), redis-cluster://[user:pass@]host:port[,host:port...]/ (or rediss-cluster://) or "
                      "mysql://user:pass@host:port/db");
        EXPECT_EQ(usage_error(TargetRole::queue_source, uri),
                  "unsupported queue source '" + std::string(uri) +
                      "': expected redis://[user:pass@]host:port/db (or rediss://, redis+unix://, redis-sentinel://), "
                      "redis-cluster://[user:pass@]host:port[,host:port...]/ (or rediss-cluster://) or mysql://user:pass@host:port/db "
                      "(neither stdout nor a file holds a queue)");
    }
}

TEST(TargetGrammar, AQueueSourceIsNeitherStdoutNorAFile) {
    for (const char* uri : {"stdout", "file:tasks.ndjson"})
        EXPECT_NE(usage_error(TargetRole::queue_source, uri).find("neither stdout nor a file holds a queue"),
                  std::string::npos)
            << uri;
}

TEST(TargetGrammar, ErrorsNeverShowThePassword) {
    for (TargetRole role : {TargetRole::sink, TargetRole::queue_source}) {
        const std::string message = usage_error(role, "postgres://user:hunter2@db/x");
        EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
        EXPECT_NE(message.find("postgres://user:***@db/x"), std::string::npos) << message;
    }
}

TEST(TargetGrammar, FilePaths) {
    EXPECT_EQ(target_file_path("file:out.ndjson"), "out.ndjson");
    EXPECT_EQ(target_file_path("file:///tmp/out.ndjson"), "/tmp/out.ndjson");
    for (const char* uri : {"file:", "file://"}) EXPECT_THROW(target_file_path(uri), UsageError) << uri;
}

// ---------------------------------------------------------------------------------------- typed targets

// What an embedding program could not put into a URL without escaping it: '@', '/', ':', '?' and '%'.
const std::string awkward_password = "p@ss/w:rd?%41";

TEST(TypedSinkTarget, RedisOptionsArriveAsGiven) {
    RedisOptions options;
    options.host = "10.0.0.7";
    options.port = 6380;
    options.db = 3;
    options.password = awkward_password;
    const SinkSpec spec = SinkSpec::redis(options, "orders");
    EXPECT_EQ(spec.queue, "orders");
    EXPECT_EQ(spec.uri.find(awkward_password), std::string::npos) << "the uri only shows the target: " << spec.uri;
    EXPECT_EQ(spec.uri, "redis://:***@10.0.0.7:6380/3");

    ASSERT_EQ(&backend_for(spec), &redis_backend());
    const RedisOptions opened = sink_redis_options(spec);
    EXPECT_EQ(opened.password, awkward_password);
    EXPECT_EQ(opened.host, "10.0.0.7");
    EXPECT_EQ(opened.port, 6380u);
    EXPECT_EQ(opened.db, 3);
}

TEST(TypedSinkTarget, MySqlOptionsArriveAsGivenWithTheirRetryBudget) {
    MySqlOptions options;
    options.user = "app";
    options.password = awkward_password;
    options.database = "shop";
    options.retry_budget = std::chrono::seconds(7);
    const SinkSpec spec = SinkSpec::mysql(options, "jobs");
    EXPECT_EQ(spec.queue, "jobs");
    EXPECT_EQ(spec.timeouts.retry_budget, std::chrono::seconds(7));
    EXPECT_EQ(spec.uri.find(awkward_password), std::string::npos) << spec.uri;
    EXPECT_EQ(&backend_for(spec), &mysql_queue_backend());

    const MySqlOptions opened = sink_mysql_options(spec);
    EXPECT_EQ(opened.password, awkward_password);
    EXPECT_EQ(opened.user, "app");
    EXPECT_EQ(opened.database, "shop");
    EXPECT_EQ(opened.retry_budget, std::chrono::seconds(7));
}

TEST(TypedSinkTarget, ATypedTargetWinsOverTheUri) {
    RedisOptions options;
    options.port = 6390;
    SinkSpec spec = SinkSpec::redis(options, "q");
    spec.uri = "kafka://not-parsed";
    ASSERT_EQ(&backend_for(spec), &redis_backend());
    EXPECT_EQ(sink_redis_options(spec).port, 6390u);
}

TEST(TypedSinkTarget, TwoTargetsAreRefused) {
    SinkSpec spec = SinkSpec::redis(RedisOptions{}, "q");
    spec.mysql_target = MySqlOptions{};
    EXPECT_THROW(backend_for(spec), UsageError);
}

// The queue is checked before anything connects (the typed targets point at port 1, which never answers).
TEST(TypedSinkTarget, MakeSinkStillNeedsAQueue) {
    RedisOptions redis;
    redis.port = 1;
    MySqlOptions mysql;
    mysql.port = 1;
    mysql.user = "u";
    for (const SinkSpec& spec : {SinkSpec::redis(redis, ""), SinkSpec::mysql(mysql, "")}) {
        try {
            make_sink(spec);
            ADD_FAILURE() << "no UsageError for " << spec.uri;
        } catch (const UsageError& error) {
            EXPECT_NE(std::string(error.what()).find("--queue"), std::string::npos) << error.what();
        }
    }
}

}  // namespace
}  // namespace rowpump
