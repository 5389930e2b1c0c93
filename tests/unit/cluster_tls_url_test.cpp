// rediss-cluster://: a Redis Cluster over TLS, its ssl-* options (rediss://'s) given to every seed and
// every node the slot map names; redis-cluster:// takes none.
#include <gtest/gtest.h>

#include <string>

#include "backend/registry/registry.hpp"
#include "redis/cluster_options.hpp"
#include "rowpump/error.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

TEST(ClusterTlsUrlTest, SslOptionsGoToEverySeedAndNode) {
    // A readable file for ssl-ca: its contents are read when a connection is made, not here.
    const test::TempFile ca_file("not a certificate\n", ".pem");
    const std::string& ca = ca_file.path();
    const auto options = redis::ClusterOptions::from_url("rediss-cluster://app:pw@10.0.0.1:7000,10.0.0.2:7001/?ssl-ca=" +
                                                         ca + "&ssl-mode=VERIFY_CA");
    ASSERT_EQ(options.seeds.size(), 2u);
    for (const RedisOptions& seed : options.seeds) {
        EXPECT_TRUE(seed.tls);
        EXPECT_EQ(seed.ssl_ca, ca);
        EXPECT_EQ(seed.ssl_mode, SslMode::verify_ca);
        EXPECT_EQ(seed.user, "app");
    }
    const RedisOptions node = options.node("10.0.0.9", 7005);
    EXPECT_TRUE(node.tls);
    EXPECT_EQ(node.ssl_ca, ca);
    EXPECT_EQ(options.redacted(), "rediss-cluster://app:***@10.0.0.1:7000,10.0.0.2:7001/");
    // Without options: the system's CAs, the name verified.
    const auto bare = redis::ClusterOptions::from_url("rediss-cluster://h:1/");
    EXPECT_TRUE(bare.seeds.at(0).tls);
    EXPECT_EQ(bare.seeds.at(0).ssl_mode, SslMode::verify_identity);
}

TEST(ClusterTlsUrlTest, TlsOptionsAreRefusedWherePlainTextIsAskedFor) {
    for (const char* url : {"redis-cluster://h:1/?ssl-ca=/x", "rediss-cluster://h:1/?socket=x",
                            "rediss-cluster://h:1/?ssl-mode=DISABLED"}) {
        EXPECT_THROW(redis::ClusterOptions::from_url(url), UsageError) << url;
    }
    EXPECT_FALSE(redis::ClusterOptions::from_url("redis-cluster://h:1/").seeds.at(0).tls);
}

TEST(ClusterTlsUrlTest, TheSchemeReachesTheClusterBackend) {
    EXPECT_EQ(&backend_for_uri("rediss-cluster://h:1/", TargetRole::sink),
              &backend_for_uri("redis-cluster://h:1/", TargetRole::sink));
}

}  // namespace
}  // namespace rowpump
