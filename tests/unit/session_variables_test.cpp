// --set-vars text: names must be identifiers and values numbers or plain words, so nothing else can
// reach the SET statement; each refusal is one line naming the flag.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "unit_helpers.hpp"

namespace rowpump {
namespace {

using Variables = std::vector<std::pair<std::string, std::string>>;

void expect_refused(const std::string& text, const std::string& mentions) {
    SCOPED_TRACE(text);
    const std::string what = test::one_line_usage_error([&] { (void)parse_session_variables(text, "--set-vars"); }, mentions);
    EXPECT_NE(what.find("--set-vars"), std::string::npos) << what;
}

TEST(SessionVariables, PairsAreParsedInOrder) {
    EXPECT_EQ(parse_session_variables("innodb_lock_wait_timeout=1, max_statement_time = 30,"
                                      "tx_isolation=READ-COMMITTED,sql_log_bin=DEFAULT",
                                      "--set-vars"),
              (Variables{{"innodb_lock_wait_timeout", "1"},
                         {"max_statement_time", "30"},
                         {"tx_isolation", "READ-COMMITTED"},
                         {"sql_log_bin", "DEFAULT"}}));
    EXPECT_EQ(parse_session_variables("long_query_time=0.5,", "--set-vars"), (Variables{{"long_query_time", "0.5"}}));
}

TEST(SessionVariables, NamesMustBeIdentifiers) {
    expect_refused("`x`=1", "invalid session variable name '`x`'");
    expect_refused("a b=1", "invalid session variable name 'a b'");
    expect_refused("1x=1", "invalid session variable name '1x'");
    expect_refused("=1", "invalid session variable name ''");
    expect_refused("@@session.x=1", "invalid session variable name");
}

TEST(SessionVariables, ValuesCannotCarrySql) {
    expect_refused("sql_mode='' ; DROP TABLE t", "invalid value");
    expect_refused("sql_mode=a'b", "invalid value 'a'b'");
    expect_refused("x=1;SELECT 1", "invalid value '1;SELECT 1'");
    expect_refused("x=a\\b", "invalid value");
    expect_refused("x=", "invalid value ''");
    expect_refused("x", "has no value");
    expect_refused("a=1,,b=2", "empty item");
    expect_refused("", "empty item");
}

TEST(SessionVariables, TimeZoneStaysUtc) { expect_refused("TIME_ZONE=+05:00", "time_zone cannot be set"); }
// One reader session serves all the ranges of a worker: with autocommit off it would be one transaction
// for the whole run.
TEST(SessionVariables, AutocommitStaysOn) { expect_refused("autocommit=0", "autocommit cannot be set"); }
// The driver escapes values in the character set it connected with: a session that read them in
// another (gbk's 0xBF 0x27) would see a quote the escaping let through.
TEST(SessionVariables, TheConnectionCharacterSetStaysUtf8mb4) {
    for (const char* item : {"character_set_client=gbk", "CHARACTER_SET_CONNECTION=big5", "character_set_results=latin1",
                             "collation_connection=sjis_japanese_ci"})
        expect_refused(item, "cannot be set");
}

}  // namespace
}  // namespace rowpump
