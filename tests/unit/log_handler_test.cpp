// The library's log, as a program that embeds rowpump sees it: messages at or above the level reach the
// program's handler, and without one the library writes nothing to stderr (the program owns it).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "rowpump/log.hpp"
#include "rowpump/table.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

// Paging it by `grp`, which is not unique, logs at info that the primary key breaks ties.
TableInfo orders() {
    return test::table_info("orders",
                            {{"id", "int(11)", ColumnKind::signed_integer, false, 0, 0},
                             {"grp", "int(11)", ColumnKind::signed_integer, false, 0, 0}},
                            {"id"}, {{"PRIMARY", true, {"id"}}});
}

void log_an_info_line() { choose_paging_key(orders(), {"grp"}); }

class LogHandlerTest : public ::testing::Test {
protected:
    void SetUp() override {
        set_log_handler([this](LogLevel level, std::string_view message) { seen.emplace_back(level, message); });
    }
    void TearDown() override {
        set_log_handler({});
        set_log_level(LogLevel::info);
    }
    std::vector<std::pair<LogLevel, std::string>> seen;
};

TEST_F(LogHandlerTest, InfoIsTheDefaultLevelAndReachesTheHandlerFormatted) {
    EXPECT_EQ(log_level(), LogLevel::info);
    log_an_info_line();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].first, LogLevel::info);
    EXPECT_EQ(seen[0].second,
              "key `grp` of `db`.`orders` is not unique: paging by (`grp`, `id`), the primary key breaks ties");
}

TEST_F(LogHandlerTest, MessagesBelowTheLevelAreNotPassedOn) {
    set_log_level(LogLevel::warning);
    EXPECT_EQ(log_level(), LogLevel::warning);
    log_an_info_line();
    set_log_level(LogLevel::off);
    log_an_info_line();
    EXPECT_TRUE(seen.empty());
    set_log_level(LogLevel::debug);
    log_an_info_line();
    EXPECT_EQ(seen.size(), 1u);
}

TEST_F(LogHandlerTest, ANewHandlerReplacesTheOld) {
    log_an_info_line();
    std::size_t second = 0;
    set_log_handler([&](LogLevel, std::string_view) { ++second; });
    log_an_info_line();
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_EQ(second, 1u);
}

TEST_F(LogHandlerTest, WithoutAHandlerNothingIsWrittenToStderr) {
    set_log_handler({});
    testing::internal::CaptureStderr();
    log_an_info_line();
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(LogLevelNames, AreTheOnesTheCliPrints) {
    EXPECT_EQ(to_string(LogLevel::debug), "debug");
    EXPECT_EQ(to_string(LogLevel::info), "info");
    EXPECT_EQ(to_string(LogLevel::warning), "warning");
    EXPECT_EQ(to_string(LogLevel::error), "error");
    EXPECT_EQ(to_string(LogLevel::off), "off");
}

}  // namespace
}  // namespace rowpump
