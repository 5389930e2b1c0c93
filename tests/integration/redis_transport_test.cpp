// Redis reached through a unix socket and through TLS, by the CLI as a user runs it: a backfill and a
// consumer each way, every row once; and each TLS check that fails (a CA that did not sign the server's
// certificate, a name the certificate does not carry, plain text to the TLS port, a client certificate
// the server's CA did not sign) ends the run with exit 2 and one line that names the check.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "integration/prepared_fixture.hpp"
#include "integration/redis_transport_fixture.hpp"

namespace rowpump::test {
namespace {

TEST_F(RedisTransportTest, BackfillAndConsumerOverAUnixSocket) {
    const std::string url = env_or_fail("ROWPUMP_REDIS_SOCKET_URL");
    if (url.empty()) return;
    ASSERT_EQ(RedisOptions::from_url(url).socket.empty(), false) << url;
    const CliRun run = backfill(url);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    expect_every_row_once(queued_ids(url));
    expect_every_row_once(consume(url));
    EXPECT_TRUE(queued_ids(url).empty());
}

// The TLS Redis's certificates (services.sh: redis_tls.sh): its CA, and a client pair the CA signed.
class RedisTlsTest : public Prepared<RedisTransportTest> {
protected:
    void prepare() override {
        base_url_ = env_or_fail("ROWPUMP_REDIS_TLS_URL");
        certs_ = env_or_fail("ROWPUMP_REDIS_TLS_CERTS");
        ASSERT_FALSE(base_url_.empty() || certs_.empty());
        verified_ = base_url_ + "?ssl-ca=" + certs_ + "/ca.pem";
        cleanup_url_ = verified_;
        scratch_ = std::filesystem::temp_directory_path() / ("rp_test_redis_tls_" + std::to_string(::getpid()));
        std::filesystem::create_directories(scratch_);
    }
    void TearDown() override {
        std::filesystem::remove_all(scratch_);
        RedisTransportTest::TearDown();
    }

    // The TLS URL with another host: the certificate names localhost only.
    std::string with_host(const std::string& url, const std::string& host) const {
        const auto start = url.find("://") + 3;
        return url.substr(0, start) + host + url.substr(url.find(':', start));
    }

    // A CA of the test's own, and a client certificate it signed: neither means anything to the server.
    std::string make_foreign_ca() const {
        const std::string d = "'" + scratch_.string() + "/";
        const std::string script =
            "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=rp_test foreign CA' "
            "-addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign' -keyout " + d +
            "ca-key.pem' -out " + d + "ca.pem' && openssl req -newkey rsa:2048 -nodes -subj '/CN=rp_test client' "
            "-keyout " + d + "client-key.pem' -out " + d + "client.csr' && openssl x509 -req -in " + d +
            "client.csr' -CA " + d + "ca.pem' -CAkey " + d + "ca-key.pem' -CAcreateserial -days 1 -out " + d +
            "client-cert.pem'";
        EXPECT_EQ(std::system(("(" + script + ") >/dev/null 2>&1").c_str()), 0);
        return scratch_.string();
    }

    // A backfill through `url` ends at once with exit 2 and one error line that says `says`.
    void expect_refused(const std::string& url, const std::string& says) {
        SCOPED_TRACE(url);
        const CliRun run = backfill(url);
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        const auto error_lines = lines(run.err);
        ASSERT_FALSE(error_lines.empty()) << run.describe();
        EXPECT_NE(error_lines.back().find(says), std::string::npos) << run.describe();
        EXPECT_TRUE(queued_ids(verified_).empty());
    }

    std::string base_url_;
    std::string certs_;
    std::string verified_;  // the base URL with ssl-ca: certificate and name verified (the default mode)
    std::filesystem::path scratch_;
};

TEST_F(RedisTlsTest, BackfillAndConsumerOverVerifiedTls) {
    const CliRun run = backfill(verified_);
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    expect_every_row_once(queued_ids(verified_));
    // With the client certificate the server's CA signed, which tls-auth-clients optional then checks.
    const std::string with_client = verified_ + "&ssl-cert=" + certs_ + "/client-cert.pem&ssl-key=" + certs_ +
                                    "/client-key.pem";
    expect_every_row_once(consume(with_client));
    EXPECT_TRUE(queued_ids(verified_).empty());
}

TEST_F(RedisTlsTest, EachFailedCheckIsOneLineAndExitTwo) {
    const std::string foreign = make_foreign_ca();
    expect_refused(base_url_ + "?ssl-ca=" + foreign + "/ca.pem", "untrusted CA");
    expect_refused(with_host(verified_, "127.0.0.1"), "name mismatch: the server's certificate does not name '127.0.0.1'");
    // CA only: the same address passes, since the name is not checked.
    const CliRun ca_only = backfill(with_host(verified_, "127.0.0.1") + "&ssl-mode=VERIFY_CA");
    EXPECT_EQ(ca_only.exit_code, 0) << ca_only.describe();
    EXPECT_EQ(queued_ids(verified_).size(), rows);
    redis::Connection(RedisOptions::from_url(verified_)).command({"DEL", queue_});
    const std::string plain = "redis://" + with_host(base_url_, "127.0.0.1").substr(std::string("rediss://").size());
    expect_refused(plain, "rediss://");
    expect_refused(verified_ + "&ssl-cert=" + foreign + "/client-cert.pem&ssl-key=" + foreign +
                                      "/client-key.pem",
                                  "client certificate refused");
}

}  // namespace
}  // namespace rowpump::test
