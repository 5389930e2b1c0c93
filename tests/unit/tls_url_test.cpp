// The ssl-* options of a MySQL URL: parsed, checked together, and refused with one clear line.
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

class TlsUrlTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("rp_test_tls_url_" + std::to_string(getpid()));
        std::filesystem::create_directories(dir_);
        for (const char* name : {"ca.pem", "client.pem", "client-key.pem"}) std::ofstream(dir_ / name) << "PEM\n";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string file(const char* name) const { return (dir_ / name).string(); }
    std::string url(const std::string& options) const { return "mysql://app:pw@db.example.com/shop?" + options; }

    void expect_refused(const std::string& options, const std::string& mentions) const {
        SCOPED_TRACE(options);
        const std::string what = test::one_line_usage_error([&] { (void)MySqlOptions::from_url(url(options)); }, mentions);
        EXPECT_EQ(what.find("pw@"), std::string::npos) << what;
    }

    std::filesystem::path dir_;
};

TEST_F(TlsUrlTest, NoSslOptionMeansNoTls) {
    EXPECT_EQ(MySqlOptions::from_url("mysql://app:pw@db/shop").ssl_mode, SslMode::disabled);
}

TEST_F(TlsUrlTest, EveryModeIsParsedInAnyCase) {
    EXPECT_EQ(MySqlOptions::from_url(url("ssl-mode=DISABLED")).ssl_mode, SslMode::disabled);
    EXPECT_EQ(MySqlOptions::from_url(url("ssl-mode=preferred")).ssl_mode, SslMode::preferred);
    EXPECT_EQ(MySqlOptions::from_url(url("ssl-mode=Required")).ssl_mode, SslMode::required);
    const auto ca = MySqlOptions::from_url(url("ssl-mode=VERIFY_CA&ssl-ca=" + file("ca.pem")));
    EXPECT_EQ(ca.ssl_mode, SslMode::verify_ca);
    EXPECT_EQ(ca.ssl_ca, file("ca.pem"));
    const auto identity = MySqlOptions::from_url(url("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + file("ca.pem") +
                                                     "&ssl-cert=" + file("client.pem") + "&ssl-key=" +
                                                     file("client-key.pem")));
    EXPECT_EQ(identity.ssl_mode, SslMode::verify_identity);
    EXPECT_EQ(identity.ssl_cert, file("client.pem"));
    EXPECT_EQ(identity.ssl_key, file("client-key.pem"));
    EXPECT_NE(identity.redacted().find("ssl-mode=VERIFY_IDENTITY"), std::string::npos) << identity.redacted();
}

TEST_F(TlsUrlTest, ACaWithoutAModeVerifiesTheIdentity) {
    EXPECT_EQ(MySqlOptions::from_url(url("ssl-ca=" + file("ca.pem"))).ssl_mode, SslMode::verify_identity);
}

TEST_F(TlsUrlTest, ContradictionsAndMissingFilesAreRefused) {
    expect_refused("ssl-mode=SOMETIMES", "expected DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY");
    expect_refused("ssl-mode=VERIFY_IDENTITY", "add ssl-ca=PATH");
    expect_refused("ssl-mode=VERIFY_CA", "add ssl-ca=PATH");
    expect_refused("ssl-mode=DISABLED&ssl-ca=" + file("ca.pem"), "takes no ssl-ca");
    expect_refused("ssl-mode=REQUIRED&ssl-ca=" + file("ca.pem"), "only used to verify");
    expect_refused("ssl-mode=REQUIRED&ssl-cert=" + file("client.pem"), "ssl-cert and ssl-key go together");
    expect_refused("ssl-mode=VERIFY_CA&ssl-ca=" + file("missing.pem"), "cannot read the ssl-ca file");
    expect_refused("ssl-mode=VERIFY_CA&ssl-ca=" + dir_.string(), "it is a directory");
}

}  // namespace
}  // namespace rowpump
