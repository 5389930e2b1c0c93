#pragma once
// The MariaDB that requires TLS (require_secure_transport=ON, global time zone +05:00), which
// `scripts/services.sh start` runs beside the main one: ROWPUMP_TLS_MYSQL_URL and ROWPUMP_TLS_CA.
// A test fails, never skips, when they are unset.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "integration/mysql_fixture.hpp"
#include "url.hpp"

namespace rowpump::test {

inline const char* const start_tls_services_hint =
    "ROWPUMP_TLS_MYSQL_URL / ROWPUMP_TLS_CA are not set: these tests need the MariaDB that requires TLS. Start it "
    "and export its address with:  bash scripts/services.sh start && eval \"$(bash scripts/services.sh env)\"";

class TlsServerTest : public ::testing::Test {
protected:
    void SetUp() override {
        const char* url = std::getenv("ROWPUMP_TLS_MYSQL_URL");
        const char* ca = std::getenv("ROWPUMP_TLS_CA");
        if (!url || !*url || !ca || !*ca) FAIL() << start_tls_services_hint;
        // The URL the services export holds no password (it travels in ROWPUMP_MYSQL_PASSWORD); the tests
        // edit a URL that does, so the password is put in.
        const MySqlOptions plain = MySqlOptions::from_url(url);
        plain_url_ = "mysql://" + percent_encode(plain.user) + ":" + percent_encode(plain.password) + "@" + plain.host +
                     ":" + std::to_string(plain.port) + "/" + percent_encode(plain.database);
        ca_ = ca;
        options_ = MySqlOptions::from_url(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_));
        try {
            tables_ = std::make_unique<TestTables>(options_);
        } catch (const Error& error) {
            FAIL() << "cannot connect to " << options_.redacted() << " (" << error.what()
                   << "): is the TLS MariaDB running? Run: bash scripts/services.sh start";
        }
    }
    void TearDown() override { tables_.reset(); }

    // The server's URL with these ?options, and optionally another host.
    std::string url_with(const std::string& query, const std::string& host = "") const {
        std::string url = plain_url_;
        if (!host.empty()) {
            const auto at = url.rfind('@');
            const auto colon = url.find(':', at);
            url = url.substr(0, at + 1) + host + url.substr(colon);
        }
        return url + (url.find('?') == std::string::npos ? "?" : "&") + query;
    }

    TestTables& tables() { return *tables_; }

    std::string plain_url_;
    std::string ca_;
    MySqlOptions options_;
    std::unique_ptr<TestTables> tables_;
};

}  // namespace rowpump::test
