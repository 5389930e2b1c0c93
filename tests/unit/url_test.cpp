#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mysql/connection.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "url.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

// from_url() reads the password variables when the URL has none: clear them for each test and put
// back whatever the environment had.
class UrlTest : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* name : variables_) {
            const char* value = std::getenv(name);
            saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
            unsetenv(name);
        }
    }
    void TearDown() override {
        for (std::size_t i = 0; i < variables_.size(); ++i) {
            if (saved_[i]) setenv(variables_[i], saved_[i]->c_str(), 1);
            else unsetenv(variables_[i]);
        }
    }

private:
    const std::vector<const char*> variables_ = {"ROWPUMP_MYSQL_PASSWORD", "ROWPUMP_MYSQL_PASSWORD_FILE",
                                                 "ROWPUMP_REDIS_PASSWORD", "ROWPUMP_REDIS_PASSWORD_FILE"};
    std::vector<std::optional<std::string>> saved_;
};

void expect_usage_error(const std::string& url, const std::string& mentions) {
    try {
        MySqlOptions::from_url(url);
        ADD_FAILURE() << "accepted " << url;
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find(mentions), std::string::npos) << error.what();
        EXPECT_EQ(error.exit_code(), ExitCode::bad_input);
    }
}

// --- MySQL URLs ---------------------------------------------------------------------------------------

// A URL and every part from_url() takes from it (the defaults where it says nothing).
struct MySqlUrlParts {
    std::string what;
    std::string url;
    std::string user;
    std::string password;
    std::string host;
    unsigned port;
    std::string database;
    std::string socket;
};

TEST_F(UrlTest, MySqlUrlsGiveEveryPart) {
    const std::vector<MySqlUrlParts> cases = {
        {"every part", "mysql://app:s3cret@db.example.com:3307/shop?connect_timeout=5", "app", "s3cret",
         "db.example.com", 3307, "shop", ""},
        {"defaults, mariadb scheme", "mariadb://app@localhost", "app", "", "localhost", 3306, "", ""},
        {"percent escapes decoded", "mysql://us%40er:p%3Ass%2Fw%40rd%25@h/my%20db", "us@er", "p:ss/w@rd%", "h",
         3306, "my db", ""},
        {"an unescaped @ in the password: the host follows the last @", "mysql://u:p@ss@host:3306/db", "u", "p@ss",
         "host", 3306, "db", ""},
        {"socket form", "mysql://u:p@localhost/db?socket=/tmp/x.sock", "u", "p", "localhost", 3306, "db",
         "/tmp/x.sock"},
        {"IPv6 host", "mysql://u:p@[::1]:3307/db", "u", "p", "::1", 3307, "db", ""},
        {"IPv6 host, default port", "mysql://u@[fe80::1]/db", "u", "", "fe80::1", 3306, "db", ""},
    };
    for (const auto& expected : cases) {
        SCOPED_TRACE(expected.what + ": " + expected.url);
        const auto options = MySqlOptions::from_url(expected.url);
        EXPECT_EQ(options.user, expected.user);
        EXPECT_EQ(options.password, expected.password);
        EXPECT_EQ(options.host, expected.host);
        EXPECT_EQ(options.port, expected.port);
        EXPECT_EQ(options.database, expected.database);
        EXPECT_EQ(options.socket, expected.socket);
    }
    EXPECT_EQ(MySqlOptions::from_url(cases.front().url).connect_timeout, std::chrono::seconds(5));
}

TEST_F(UrlTest, MalformedMySqlUrlsAreUsageErrors) {
    expect_usage_error("u:p@host/db", "malformed URL");
    expect_usage_error("postgres://u:p@host/db", "unsupported URL scheme 'postgres'");
    expect_usage_error("mysql://u:p@host:abc/db", "invalid port 'abc'");
    expect_usage_error("mysql://u:p@host:0/db", "invalid port '0'");
    expect_usage_error("mysql://u:p@host:65536/db", "invalid port '65536'");
    expect_usage_error("mysql://u:p@host:/db", "empty port");
    expect_usage_error("mysql://u:p@[::1/db", "IPv6");
    expect_usage_error("mysql://u:p@host/db?colour=blue", "unknown option 'colour'");
    expect_usage_error("mysql://u:p@host/db?socket", "malformed option");
    expect_usage_error("mysql://u:p@host/db?connect_timeout=soon", "invalid connect_timeout");
    expect_usage_error("mysql://host:3306/db", "no user");
    expect_usage_error("mysql://:p@host/db", "no user");
    expect_usage_error("mysql://u:p%zz@host/db", "percent-escape");
    expect_usage_error("mysql://u:p@host/db/table", "invalid database");
}

TEST_F(UrlTest, ErrorsNeverShowThePassword) {
    for (const std::string url : {"mysql://u:hunter2@host:abc/db", "mysql://u:hunter2@host/db?colour=blue",
                                  "postgres://u:hunter2@host/db", "mysql://u:hunter2@host/a/b"}) {
        try {
            MySqlOptions::from_url(url);
            ADD_FAILURE() << "accepted a malformed URL";
        } catch (const UsageError& error) {
            EXPECT_EQ(std::string(error.what()).find("hunter2"), std::string::npos) << error.what();
        }
    }
}

TEST_F(UrlTest, RedactedNeverContainsThePassword) {
    const auto tcp = MySqlOptions::from_url("mysql://app:hunter2@db:3307/shop");
    EXPECT_EQ(tcp.redacted(), "mysql://app:***@db:3307/shop");
    const auto socket = MySqlOptions::from_url("mysql://app:p%40ss@localhost/shop?socket=/tmp/x.sock");
    EXPECT_EQ(socket.redacted(), "mysql://app:***@localhost/shop?socket=/tmp/x.sock");
    EXPECT_EQ(socket.redacted().find("p@ss"), std::string::npos);
    EXPECT_EQ(MySqlOptions::from_url("mysql://app@db/shop").redacted(), "mysql://app@db:3306/shop");
}

TEST_F(UrlTest, PasswordFromEnvironmentFillsOnlyAnEmptyPassword) {
    setenv("ROWPUMP_MYSQL_PASSWORD", "from-env", 1);
    EXPECT_EQ(MySqlOptions::from_url("mysql://u@host/db").password, "from-env");
    EXPECT_EQ(MySqlOptions::from_url("mysql://u:in-url@host/db").password, "in-url");
    MySqlOptions options;
    options.password_from_env();
    EXPECT_EQ(options.password, "from-env");
    EXPECT_EQ(MySqlOptions::from_url("mysql://u@host/db").redacted().find("from-env"), std::string::npos);
    unsetenv("ROWPUMP_MYSQL_PASSWORD");
    EXPECT_EQ(MySqlOptions::from_url("mysql://u@host/db").password, "");
}

TEST_F(UrlTest, PasswordFileThatCannotBeReadIsAUsageError) {
    setenv("ROWPUMP_MYSQL_PASSWORD_FILE", "/nonexistent/rowpump-password", 1);
    EXPECT_THROW(MySqlOptions::from_url("mysql://u@host/db"), UsageError);
}

// A password file written for one test and removed after it.
class PasswordFile : public test::TempFile {
public:
    explicit PasswordFile(const std::string& content) : TempFile(content) {}
};

std::string password_from_file(const std::string& content) {
    const PasswordFile file(content);
    setenv("ROWPUMP_MYSQL_PASSWORD_FILE", file.path().c_str(), 1);
    return MySqlOptions::from_url("mysql://u@host/db").password;
}

TEST_F(UrlTest, PasswordFileLosesOnlyOneTrailingLineEnd) {
    const std::pair<const char*, const char*> file_and_password[] = {
        {"s3cret\r\n", "s3cret"},     {"s3cret\n", "s3cret"},     {"s3cret", "s3cret"},
        {" s3cret \n", " s3cret "}, {"s3cret\n\n", "s3cret\n"}, {"s3cret\r", "s3cret\r"},
    };
    for (const auto& [file, password] : file_and_password) EXPECT_EQ(password_from_file(file), password) << file;
}

TEST_F(UrlTest, EmptyPasswordVariableLeavesThePasswordToTheFile) {
    setenv("ROWPUMP_MYSQL_PASSWORD", "", 1);
    EXPECT_EQ(password_from_file("from-file\n"), "from-file");
}

TEST_F(UrlTest, PasswordFileThatIsADirectoryIsAUsageErrorNamingTheVariable) {
    const std::string directory = std::filesystem::temp_directory_path().string();
    for (const char* variable : {"ROWPUMP_MYSQL_PASSWORD_FILE", "ROWPUMP_REDIS_PASSWORD_FILE"}) {
        setenv(variable, directory.c_str(), 1);
        try {
            if (std::string(variable).find("MYSQL") != std::string::npos) MySqlOptions::from_url("mysql://u@host/db");
            else RedisOptions::from_url("redis://host/0");
            ADD_FAILURE() << variable << " naming a directory was taken as no password";
        } catch (const UsageError& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find(variable), std::string::npos) << message;
            EXPECT_NE(message.find(directory), std::string::npos) << message;
            EXPECT_NE(message.find("directory"), std::string::npos) << message;
        }
        unsetenv(variable);
    }
}

// --- redact_url ---------------------------------------------------------------------------------------

TEST_F(UrlTest, RedactUrlHidesPasswordsInText) {
    EXPECT_EQ(redact_url("cannot connect to mysql://root:p@ss@db:3306/x: refused"),
              "cannot connect to mysql://root:***@db:3306/x: refused");
    EXPECT_EQ(redact_url("from mysql://a:one@h/x to redis://:two@r:6379/0"),
              "from mysql://a:***@h/x to redis://:***@r:6379/0");
    EXPECT_EQ(redact_url("no password in mysql://app@db/x or at me@example.com"),
              "no password in mysql://app@db/x or at me@example.com");
    EXPECT_EQ(redact_url("mysql://db:3306/x"), "mysql://db:3306/x");
    EXPECT_EQ(redact_url(""), "");
}

TEST_F(UrlTest, RedactUrlHidesPasswordsOfUrlsWithoutScheme) {
    EXPECT_EQ(redact_url("malformed URL 'u:secret@host:3306/db': expected mysql://..."),
              "malformed URL 'u:***@host:3306/db': expected mysql://...");
    EXPECT_EQ(redact_url("u:secret@host"), "u:***@host");
    EXPECT_EQ(redact_url(":secret@host"), ":***@host");
    EXPECT_EQ(redact_url("--mysql=u:p@ss@host/db"), "--mysql=u:***@host/db");
    EXPECT_EQ(redact_url("source.mysql=u:secret@h/db: bad"), "source.mysql=u:***@h/db: bad");
    EXPECT_EQ(redact_url("line one\nu:secret@host"), "line one\nu:***@host");
    // Text that only looks a little like credentials stays as it is.
    EXPECT_EQ(redact_url("rowpump: error: at 12:30 write to me@example.com"),
              "rowpump: error: at 12:30 write to me@example.com");
    EXPECT_EQ(redact_url("see mysql://app@db:3306/x"), "see mysql://app@db:3306/x");
}

TEST_F(UrlTest, PasswordSpansPointAtEachPassword) {
    const std::string text = "a mysql://u:one@h/x b:two@h 'redis://:three@r/0'";
    std::vector<std::string> found;
    for (const auto& [start, length] : password_spans(text)) found.push_back(text.substr(start, length));
    EXPECT_EQ(found, (std::vector<std::string>{"one", "two", "three"}));
}

TEST_F(UrlTest, ErrorsOfUrlsWithoutSchemeNeverShowThePassword) {
    for (const std::string url : {"u:hunter2@host:3306/db", "u:hunter2@host/x://y", ":hunter2@host"}) {
        try {
            MySqlOptions::from_url(url);
            ADD_FAILURE() << "accepted " << url;
        } catch (const UsageError& error) {
            EXPECT_NE(std::string(error.what()).find("malformed URL"), std::string::npos) << error.what();
            EXPECT_EQ(std::string(error.what()).find("hunter2"), std::string::npos) << error.what();
        }
    }
    try {
        RedisOptions::from_url("u:hunter2@cache:6379/0");
        ADD_FAILURE() << "accepted a Redis URL without scheme";
    } catch (const UsageError& error) {
        EXPECT_EQ(std::string(error.what()).find("hunter2"), std::string::npos) << error.what();
    }
}

TEST_F(UrlTest, ErrorsNeverShowPartsOfAPasswordWithUnescapedDelimiters) {
    // The '/' or '?' ends the authority early, so the rest of the password lands in the port, path or options.
    for (const std::string url :
         {"mysql://u:hun/ter2@host/db", "mysql://u:hun?ter2@host/db", "mysql://u:hunter2/x@host/db"}) {
        try {
            MySqlOptions::from_url(url);
            ADD_FAILURE() << "accepted " << url;
        } catch (const UsageError& error) {
            const std::string message = error.what();
            for (const char* piece : {"hun", "ter2"}) EXPECT_EQ(message.find(piece), std::string::npos) << message;
        }
    }
    EXPECT_THROW(RedisOptions::from_url("redis://:hun/ter2@cache/0"), UsageError);
}

// --- Redis URLs ---------------------------------------------------------------------------------------

TEST_F(UrlTest, RedisUrlWithPasswordAndDb) {
    const auto options = RedisOptions::from_url("redis://:s3cret@cache:6380/2");
    EXPECT_EQ(options.host, "cache");
    EXPECT_EQ(options.port, 6380u);
    EXPECT_EQ(options.user, "");
    EXPECT_EQ(options.password, "s3cret");
    EXPECT_EQ(options.db, 2);
    EXPECT_EQ(options.redacted(), "redis://:***@cache:6380/2");
}

TEST_F(UrlTest, RedisUrlWithUserAndWithoutPassword) {
    const auto acl = RedisOptions::from_url("redis://worker:pw@cache/5");
    EXPECT_EQ(acl.user, "worker");
    EXPECT_EQ(acl.password, "pw");
    EXPECT_EQ(acl.db, 5);
    EXPECT_EQ(acl.redacted().find("pw"), std::string::npos);

    const auto plain = RedisOptions::from_url("redis://cache");
    EXPECT_EQ(plain.host, "cache");
    EXPECT_EQ(plain.port, 6379u);
    EXPECT_EQ(plain.password, "");
    EXPECT_EQ(plain.db, 0);
    EXPECT_EQ(plain.redacted(), "redis://cache:6379/0");
}

TEST_F(UrlTest, RedisSocketAndEnvironmentPassword) {
    setenv("ROWPUMP_REDIS_PASSWORD", "env-secret", 1);
    const auto options = RedisOptions::from_url("redis://localhost/1?socket=/tmp/redis.sock");
    EXPECT_EQ(options.socket, "/tmp/redis.sock");
    EXPECT_EQ(options.password, "env-secret");
    EXPECT_EQ(options.redacted().find("env-secret"), std::string::npos);
}

TEST_F(UrlTest, MalformedRedisUrlsAreUsageErrors) {
    EXPECT_THROW(RedisOptions::from_url("redis://cache/abc"), UsageError);
    EXPECT_THROW(RedisOptions::from_url("redis://cache/-1"), UsageError);
    EXPECT_THROW(RedisOptions::from_url("redis://cache/1x"), UsageError);
    EXPECT_THROW(RedisOptions::from_url("redis://cache:99999/0"), UsageError);
    EXPECT_THROW(RedisOptions::from_url("redisx://cache/0"), UsageError);
    EXPECT_THROW(RedisOptions::from_url("cache:6379"), UsageError);
    EXPECT_THROW(RedisOptions::from_url("redis://cache/0?db=1"), UsageError);
}

// --- percent coding -----------------------------------------------------------------------------------

TEST_F(UrlTest, PercentCodingRoundTrips) {
    const std::string text = "p@ss:w/rd %?&=\xc3\xa9";
    EXPECT_EQ(percent_encode(text), "p%40ss%3Aw%2Frd%20%25%3F%26%3D%C3%A9");
    EXPECT_EQ(percent_decode(percent_encode(text)), text);
    EXPECT_EQ(percent_decode("100%"), "100%");
}

// --- identifiers --------------------------------------------------------------------------------------

TEST(QuoteIdentifier, BackticksAreDoubled) {
    EXPECT_EQ(mysql::quote_identifier("orders"), "`orders`");
    EXPECT_EQ(mysql::quote_identifier("a`b"), "`a``b`");
    EXPECT_EQ(mysql::quote_identifier("``"), "``````");
    EXPECT_EQ(mysql::quote_identifier("my table"), "`my table`");
    EXPECT_EQ(mysql::quote_identifier("caf\xc3\xa9_\xe6\x97\xa5\xe6\x9c\xac"), "`caf\xc3\xa9_\xe6\x97\xa5\xe6\x9c\xac`");
    EXPECT_EQ(mysql::quote_identifier("x`; DROP TABLE t; --"), "`x``; DROP TABLE t; --`");
}

}  // namespace
}  // namespace rowpump
