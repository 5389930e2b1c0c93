// The Redis URL forms beside redis://: rediss:// (TLS and its ssl-* options), redis+unix:// (a unix socket)
// and redis-sentinel:// (sentinels and a master name). Each parses into RedisOptions, shows itself without
// its password, and a wrong one is refused with one line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

class RedisUrlTest : public ::testing::Test {
protected:
    void SetUp() override {
        unsetenv("ROWPUMP_REDIS_PASSWORD");
        unsetenv("ROWPUMP_REDIS_PASSWORD_FILE");
        dir_ = std::filesystem::temp_directory_path() / ("rp_test_redis_url_" + std::to_string(getpid()));
        std::filesystem::create_directories(dir_);
        for (const char* name : {"ca.pem", "client.pem", "client-key.pem"}) std::ofstream(dir_ / name) << "PEM\n";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string file(const char* name) const { return (dir_ / name).string(); }

    void expect_refused(const std::string& url, const std::string& mentions) const {
        SCOPED_TRACE(url);
        const std::string what = test::one_line_usage_error([&] { (void)RedisOptions::from_url(url); }, mentions);
        EXPECT_EQ(what.find("s3cret"), std::string::npos) << what;
    }

    std::filesystem::path dir_;
};

TEST_F(RedisUrlTest, RedissVerifiesCertificateAndNameByDefault) {
    const auto options = RedisOptions::from_url("rediss://app:s3cret@cache.example.com:6380/2?ssl-ca=" + file("ca.pem"));
    EXPECT_TRUE(options.tls);
    EXPECT_EQ(options.ssl_mode, SslMode::verify_identity);
    EXPECT_EQ(options.ssl_ca, file("ca.pem"));
    EXPECT_EQ(options.host, "cache.example.com");
    EXPECT_EQ(options.port, 6380u);
    EXPECT_EQ(options.db, 2);
    EXPECT_EQ(options.redacted(), "rediss://app:***@cache.example.com:6380/2");
    // No ssl-ca: the system's CAs, as for a managed Redis with a public certificate.
    const auto public_ca = RedisOptions::from_url("rediss://cache.example.com/0");
    EXPECT_EQ(public_ca.ssl_mode, SslMode::verify_identity);
    EXPECT_TRUE(public_ca.ssl_ca.empty());
    EXPECT_FALSE(RedisOptions::from_url("redis://cache/0").tls);
}

TEST_F(RedisUrlTest, RedissModesAndClientCertificate) {
    const auto ca_only = RedisOptions::from_url("rediss://cache/0?ssl-mode=verify_ca&ssl-ca=" + file("ca.pem"));
    EXPECT_EQ(ca_only.ssl_mode, SslMode::verify_ca);
    EXPECT_EQ(RedisOptions::from_url("rediss://cache/0?ssl-mode=REQUIRED").ssl_mode, SslMode::required);
    const auto client = RedisOptions::from_url("rediss://cache/0?ssl-ca=" + file("ca.pem") + "&ssl-cert=" +
                                               file("client.pem") + "&ssl-key=" + file("client-key.pem"));
    EXPECT_EQ(client.ssl_cert, file("client.pem"));
    EXPECT_EQ(client.ssl_key, file("client-key.pem"));
}

TEST_F(RedisUrlTest, WrongTlsOptionsAreRefusedWithOneLine) {
    expect_refused("rediss://:s3cret@cache/0?ssl-mode=DISABLED", "rediss:// is TLS only");
    expect_refused("rediss://:s3cret@cache/0?ssl-mode=PREFERRED", "rediss:// is TLS only");
    expect_refused("rediss://:s3cret@cache/0?ssl-mode=SOMETIMES", "expected DISABLED, PREFERRED");
    expect_refused("rediss://:s3cret@cache/0?ssl-mode=REQUIRED&ssl-ca=" + file("ca.pem"), "only used to verify");
    expect_refused("rediss://:s3cret@cache/0?ssl-cert=" + file("client.pem"), "ssl-cert and ssl-key go together");
    expect_refused("rediss://:s3cret@cache/0?ssl-ca=" + file("missing.pem"), "cannot read the ssl-ca file");
    expect_refused("redis://:s3cret@cache/0?ssl-ca=" + file("ca.pem"), "is for TLS: write rediss://");
    expect_refused("rediss://:s3cret@cache/0?socket=/tmp/x.sock", "expected ssl-mode, ssl-ca");
}

TEST_F(RedisUrlTest, UnixSocketInBothSpellings) {
    const auto options = RedisOptions::from_url("redis+unix://:s3cret@/run/redis/redis-server.sock?db=3");
    EXPECT_EQ(options.socket, "/run/redis/redis-server.sock");
    EXPECT_EQ(options.db, 3);
    EXPECT_EQ(options.password, "s3cret");
    EXPECT_EQ(options.redacted(), "redis+unix://:***@/run/redis/redis-server.sock?db=3");
    EXPECT_EQ(RedisOptions::from_url("redis+unix:///tmp/r.sock").db, 0);
    // The older spelling still works and means the same.
    const auto old = RedisOptions::from_url("redis://localhost/1?socket=/tmp/r.sock");
    EXPECT_EQ(old.socket, "/tmp/r.sock");
    EXPECT_EQ(old.redacted(), "redis+unix:///tmp/r.sock?db=1");
    expect_refused("redis+unix://cache/tmp/r.sock", "the path after three slashes");
    expect_refused("redis+unix:///tmp/r.sock?db=x", "invalid database");
    expect_refused("redis+unix:///tmp/r.sock?socket=/tmp/s", "expected db");
}

TEST_F(RedisUrlTest, SentinelListMasterNameAndDatabase) {
    const auto options =
        RedisOptions::from_url("redis-sentinel://app:s3cret@10.0.0.1:26490,10.0.0.2,sentinel-3:26492/orders-main/4");
    ASSERT_EQ(options.sentinels.size(), 3u);
    EXPECT_EQ(options.sentinels[0], (std::pair<std::string, unsigned>{"10.0.0.1", 26490}));
    EXPECT_EQ(options.sentinels[1], (std::pair<std::string, unsigned>{"10.0.0.2", 26379}));
    EXPECT_EQ(options.sentinels[2], (std::pair<std::string, unsigned>{"sentinel-3", 26492}));
    EXPECT_EQ(options.master_name, "orders-main");
    EXPECT_EQ(options.db, 4);
    EXPECT_EQ(options.user, "app");
    EXPECT_EQ(options.redacted(), "redis-sentinel://app:***@10.0.0.1:26490,10.0.0.2:26379,sentinel-3:26492/orders-main/4");
    EXPECT_EQ(RedisOptions::from_url("redis-sentinel://h:1/m").db, 0);
    expect_refused("redis-sentinel://:s3cret@h:1/", "no master name");
    expect_refused("redis-sentinel://:s3cret@h:1,:2/m/0", "a sentinel without a host");
    expect_refused("redis-sentinel://:s3cret@h:1,g:x/m/0", "invalid port");
    expect_refused("redis-sentinel://:s3cret@h:1/m/zero", "invalid database");
}

}  // namespace
}  // namespace rowpump
