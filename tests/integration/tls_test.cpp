// TLS to MySQL against a real server that requires it: ssl-mode=VERIFY_IDENTITY with the CA that
// services.sh generated reads through both drivers (Connector/C++ plans, Connector/C streams), and each
// way of getting it wrong (no TLS, a wrong CA, a host the certificate does not name, a client certificate
// the server does not trust or a key that is not its certificate's) fails with one line that says what is
// wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/prepared_fixture.hpp"
#include "integration/tls_fixture.hpp"
#include "mysql/connection.hpp"
#include "rowpump/error.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::test {
namespace {

class TlsTest : public Prepared<TlsServerTest> {
protected:
    void prepare() override {
        table_ = tables().create("tls", "(id BIGINT PRIMARY KEY, v VARCHAR(20))");
        tables().execute(table_, "INSERT INTO {t} SELECT seq, CONCAT('v', seq) FROM seq_1_to_250");
    }

    // Plans (control plane) and reads every row (streaming) of the table through `url`.
    std::size_t read_rows(const std::string& url) {
        const MySqlOptions options = MySqlOptions::from_url(url);
        ReadSpec spec;
        spec.table = table_;
        spec.page_size = 100;
        const auto plan = std::make_shared<const ReadPlan>(plan_read(options, spec));
        PageReader reader(options, plan);
        std::size_t rows = 0;
        while (auto page = reader.next_page()) rows += page->row_count();
        return rows;
    }

    // The one-line error that opening `url` gets from each driver.
    void expect_refused_by_both_drivers(const std::string& url, const std::string& says,
                                        const std::string& does_not_say = "") {
        const MySqlOptions options = MySqlOptions::from_url(url);
        const auto expect_line = [&](const char* driver, const std::function<void()>& open) {
            try {
                open();
                ADD_FAILURE() << driver << " connected to " << options.redacted();
            } catch (const AccessDenied& error) {
                const std::string what = error.what();
                EXPECT_NE(what.find(says), std::string::npos) << driver << ": " << what;
                if (!does_not_say.empty()) {
                    EXPECT_EQ(what.find(does_not_say), std::string::npos) << driver << ": " << what;
                }
                EXPECT_EQ(what.find('\n'), std::string::npos) << driver << ": " << what;
                EXPECT_EQ(what.find(options.password), std::string::npos) << driver << " shows the password";
                EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
            }
        };
        expect_line("Connector/C++", [&] { mysql::Connection connection(options); });
        expect_line("Connector/C, queue writer",
                    [&] { mysql::Connection connection(options, mysql::SessionDriver::connector_c); });
        ReadSpec spec;
        spec.table = table_;
        const auto plan = std::make_shared<const ReadPlan>(plan_read(options_, spec));
        expect_line("Connector/C", [&] { PageReader reader(options, plan); });
    }

    std::string table_;
};

TEST_F(TlsTest, VerifyIdentityWithTheGeneratedCaReadsEveryRow) {
    EXPECT_EQ(read_rows(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_)), 250u);
    // The certificate names both: IP:127.0.0.1 and DNS:localhost.
    EXPECT_EQ(read_rows(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_, "localhost")), 250u);
    auto cipher = tables().connection().query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    ASSERT_TRUE(cipher.next());
    EXPECT_FALSE(cipher.text(2).empty()) << "the control-plane session does not use TLS";
    // The queue writers' sessions, on Connector/C.
    mysql::Connection writer(MySqlOptions::from_url(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_)),
                             mysql::SessionDriver::connector_c);
    auto writer_cipher = writer.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    ASSERT_TRUE(writer_cipher.next());
    EXPECT_FALSE(writer_cipher.text(2).empty()) << "the queue writer's session does not use TLS";
}

TEST_F(TlsTest, RequiredAndVerifyCaRead) {
    EXPECT_EQ(read_rows(url_with("ssl-mode=REQUIRED")), 250u);
    EXPECT_EQ(read_rows(url_with("ssl-mode=PREFERRED")), 250u);
    EXPECT_EQ(read_rows(url_with("ssl-mode=VERIFY_CA&ssl-ca=" + ca_)), 250u);
}

TEST_F(TlsTest, WithoutTlsTheLineSaysTlsIsRequired) {
    expect_refused_by_both_drivers(url_with("ssl-mode=DISABLED"), "requires TLS for this account",
                                   "check the user, password");
    expect_refused_by_both_drivers(plain_url_, "add ssl-mode=VERIFY_IDENTITY&ssl-ca=", "check the user, password");
}

// What the CLI prints for it: one line, exit 2 (the password reaches the child through the environment).
TEST_F(TlsTest, TheCliSaysTlsIsRequiredInOneLine) {
    std::string url = plain_url_;
    const auto colon = url.find(':', url.find("://") + 3);
    url.erase(colon, url.rfind('@') - colon);
    const auto run = run_rowpump({"read", "--mysql", url, "--table", table_},
                                 {{"ROWPUMP_MYSQL_PASSWORD", options_.password}});
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_EQ(run.out, "") << run.describe();
    const auto err = lines(run.err);
    ASSERT_EQ(err.size(), 1u) << run.describe();
    EXPECT_EQ(err[0].rfind("rowpump: error: ", 0), 0u) << run.describe();
    EXPECT_NE(err[0].find("requires TLS for this account"), std::string::npos) << run.describe();
}

TEST_F(TlsTest, AWrongPasswordIsStillAWrongPassword) {
    std::string url = plain_url_;
    url.replace(url.find(':', url.find("://") + 3) + 1, options_.password.size(), "not-the-password");
    expect_refused_by_both_drivers(url, "check the user, password", "requires TLS");
}

TEST_F(TlsTest, AWrongCaFailsWithALineSayingVerificationFailed) {
    const auto dir = std::filesystem::temp_directory_path() / ("rp_test_tls_ca_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string other_ca = (dir / "other-ca.pem").string();
    const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=rp_test other CA' "
                                "-keyout '" + (dir / "other-ca-key.pem").string() + "' -out '" + other_ca +
                                "' >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    expect_refused_by_both_drivers(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + other_ca),
                                   "failed (ssl-mode=VERIFY_IDENTITY): ");
    expect_refused_by_both_drivers(url_with("ssl-mode=VERIFY_CA&ssl-ca=" + other_ca),
                                   "must chain to the CA in ssl-ca=" + other_ca);
    std::filesystem::remove_all(dir);
}

// A client certificate and key made by a CA of the test's own, which the server (ssl-ca: services.sh's CA)
// does not trust, and a second key that belongs to no certificate; all in a temp dir of the test.
class ForeignClientPair {
public:
    ForeignClientPair()
        : dir_(std::filesystem::temp_directory_path() / ("rp_test_tls_client_" + std::to_string(getpid()))) {
        std::filesystem::create_directories(dir_);
        const std::string d = "'" + dir_.string() + "/";
        const std::string script =
            "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj '/CN=rp_test foreign CA' "
            "-addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign' -keyout " + d +
            "ca-key.pem' -out " + d + "ca.pem' && "
            "openssl req -newkey rsa:2048 -nodes -subj '/CN=rp_test client' -keyout " + d + "client-key.pem' -out " +
            d + "client.csr' && openssl x509 -req -in " + d + "client.csr' -CA " + d + "ca.pem' -CAkey " + d +
            "ca-key.pem' -CAcreateserial "
            "-days 1 -out " + d + "client-cert.pem' && "
            "openssl genrsa -out " + d + "other-key.pem' 2048";
        ok_ = std::system(("(" + script + ") >/dev/null 2>&1").c_str()) == 0;
    }
    ~ForeignClientPair() { std::filesystem::remove_all(dir_); }
    bool ok() const { return ok_; }
    std::string cert() const { return (dir_ / "client-cert.pem").string(); }
    std::string key() const { return (dir_ / "client-key.pem").string(); }
    std::string other_key() const { return (dir_ / "other-key.pem").string(); }

private:
    std::filesystem::path dir_;
    bool ok_ = false;
};

// `rowpump read` of the test's table through `url`, whose password goes in the environment instead.
CliRun read_without_password_in_argv(std::string url, const std::string& password, const std::string& table) {
    const auto colon = url.find(':', url.find("://") + 3);
    url.erase(colon, url.rfind('@') - colon);
    return run_rowpump({"read", "--mysql", url, "--table", table}, {{"ROWPUMP_MYSQL_PASSWORD", password}});
}

// The server verifies a client certificate it is given (it has an ssl-ca): one from another CA is refused
// in the handshake, and the driver often sees only the reset (2013, system error 104).
TEST_F(TlsTest, AClientCertificateFromAnotherCaIsNamedInOneLine) {
    const ForeignClientPair pair;
    ASSERT_TRUE(pair.ok()) << "openssl could not make the test's client certificate";
    const std::string url =
        url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_ + "&ssl-cert=" + pair.cert() + "&ssl-key=" + pair.key());
    expect_refused_by_both_drivers(url, "the server refused the client certificate ssl-cert=" + pair.cert(),
                                   "is the server running");
    const auto run = read_without_password_in_argv(url, options_.password, table_);
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    EXPECT_EQ(run.out, "") << run.describe();
    const auto err = lines(run.err);
    ASSERT_EQ(err.size(), 1u) << run.describe();
    EXPECT_NE(err[0].find("client certificate ssl-cert=" + pair.cert()), std::string::npos) << run.describe();
    EXPECT_EQ(err[0].find(options_.password), std::string::npos) << run.describe();
}

TEST_F(TlsTest, AKeyThatIsNotTheCertificatesNamesTheClientsPair) {
    const ForeignClientPair pair;
    ASSERT_TRUE(pair.ok()) << "openssl could not make the test's client certificate";
    const std::string url = url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_ + "&ssl-cert=" + pair.cert() +
                                     "&ssl-key=" + pair.other_key());
    expect_refused_by_both_drivers(url,
                                   "the client's key ssl-key=" + pair.other_key() +
                                       " is not the key of its certificate ssl-cert=" + pair.cert(),
                                   "the server's certificate");
    const auto run = read_without_password_in_argv(url, options_.password, table_);
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    ASSERT_EQ(lines(run.err).size(), 1u) << run.describe();
    EXPECT_NE(run.err.find("ssl-key=" + pair.other_key()), std::string::npos) << run.describe();
}

// ::ffff:127.0.0.1 reaches the same server, but the certificate names 127.0.0.1 and localhost only.
TEST_F(TlsTest, VerifyIdentityRefusesAHostTheCertificateDoesNotName) {
    expect_refused_by_both_drivers(url_with("ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca_, "[::ffff:127.0.0.1]"),
                                   "and name the host ::ffff:127.0.0.1");
    EXPECT_EQ(read_rows(url_with("ssl-mode=VERIFY_CA&ssl-ca=" + ca_, "[::ffff:127.0.0.1]")), 250u);
}

}  // namespace
}  // namespace rowpump::test

namespace rowpump::test {
namespace {

// The main local MariaDB offers no TLS (have_ssl DISABLED): PREFERRED goes on without it, REQUIRED says
// why it cannot.
class TlsOnAServerWithoutTlsTest : public MySqlTest {
protected:
    std::string url_with(const std::string& query) const {
        return "mysql://" + options_.user + ":" + options_.password + "@" + options_.host + ":" +
               std::to_string(options_.port) + "/" + options_.database + "?" + query;
    }
};

TEST_F(TlsOnAServerWithoutTlsTest, PreferredReadsWithoutTlsAndRequiredSaysTheServerOffersNone) {
    const auto have_ssl = tables().rows("SELECT @@have_ssl");
    ASSERT_NE(have_ssl.at(0).at(0), "YES") << "this test needs a server without TLS";
    const auto table = tables().create("no_tls", "(id INT PRIMARY KEY)");
    tables().execute(table, "INSERT INTO {t} SELECT seq FROM seq_1_to_30");
    const MySqlOptions preferred = MySqlOptions::from_url(url_with("ssl-mode=PREFERRED"));
    ReadSpec spec;
    spec.table = table;
    const auto plan = std::make_shared<const ReadPlan>(plan_read(preferred, spec));
    PageReader reader(preferred, plan);
    std::size_t rows = 0;
    while (auto page = reader.next_page()) rows += page->row_count();
    EXPECT_EQ(rows, 30u);

    // Connector/C would go on in plain text under any mode: rowpump looks, and says so.
    const char* ca = std::getenv("ROWPUMP_TLS_CA");
    ASSERT_TRUE(ca && *ca) << start_tls_services_hint;
    for (const std::string& mode : std::vector<std::string>{"REQUIRED", "VERIFY_CA&ssl-ca=" + std::string(ca)}) {
        const MySqlOptions required = MySqlOptions::from_url(url_with("ssl-mode=" + mode));
        for (int driver = 0; driver < 3; ++driver) {
            try {
                if (driver == 0) mysql::Connection connection(required);
                else if (driver == 1) mysql::Connection writer(required, mysql::SessionDriver::connector_c);
                else PageReader required_reader(required, plan);
                ADD_FAILURE() << "connected without TLS under ssl-mode=" << mode << ", driver " << driver;
            } catch (const AccessDenied& error) {
                EXPECT_NE(std::string(error.what()).find("the server offers no TLS"), std::string::npos)
                    << error.what();
            }
        }
    }
}

}  // namespace
}  // namespace rowpump::test
