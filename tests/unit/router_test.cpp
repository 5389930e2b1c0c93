#include "route/router.hpp"

#include <gtest/gtest.h>

#include "rowpump/error.hpp"

namespace rowpump {
namespace {

ReadPlan routed_plan(const RouteSpec& route) {
    ReadPlan plan;
    plan.table.schema = "db";
    plan.table.name = "t";
    plan.table.columns = {{"id", "int", ColumnKind::signed_integer, false, 0, 0},
                          {"amount", "int", ColumnKind::signed_integer, true, 0, 0},
                          {"due", "datetime", ColumnKind::datetime, true, 0, 0},
                          {"note", "varchar(20)", ColumnKind::text, true, 0, 0}};
    plan.columns = {plan.table.columns[0]};
    Router::request_inputs(route, plan.spec);
    return plan;
}

TEST(PriorityLevels, ParsesNamesAndThresholds) {
    auto levels = parse_priority_levels("high:100,mid:10.5,low");
    ASSERT_EQ(levels.size(), 3u);
    EXPECT_EQ(levels[0].name, "high");
    EXPECT_DOUBLE_EQ(levels[1].min, 10.5);
    EXPECT_EQ(levels[2].name, "low");
}

TEST(PriorityLevels, RejectsBadInput) {
    EXPECT_THROW(parse_priority_levels("high:x,low"), UsageError);
    EXPECT_THROW(parse_priority_levels("high,low"), UsageError);
    EXPECT_THROW(parse_priority_levels("low:1,high:100,rest"), UsageError);
    EXPECT_THROW(parse_priority_levels(":5,low"), UsageError);
    EXPECT_THROW(parse_priority_levels("high:nan,low"), UsageError);
    EXPECT_THROW(parse_priority_levels("high:inf,low"), UsageError);
    EXPECT_THROW(parse_priority_levels("high:,low"), UsageError);
}

TEST(Router, RoutesByColumnRangesAndSendsNullToTheLowestLevel) {
    RouteSpec route;
    route.priority_column = "amount";
    route.levels = parse_priority_levels("high:100,mid:10,low");
    auto plan = routed_plan(route);
    Router router(route, plan);
    Page page(2);
    for (const char* amount : {"500", "100", "99", "10", "-3"}) {
        page.append("1");
        page.append(amount);
    }
    page.append("2");
    page.append_null();
    std::vector<int> levels;
    for (std::size_t row = 0; row < page.row_count(); ++row) {
        Message message;
        router.route(page, row, message, std::chrono::system_clock::now());
        levels.push_back(message.priority_level);
        EXPECT_EQ(message.due_ms, 0);
    }
    EXPECT_EQ(levels, (std::vector<int>{0, 0, 1, 1, 2, 2}));
}

TEST(Router, FixedDelayIsCountedFromNow) {
    RouteSpec route;
    route.delay = std::chrono::seconds(30);
    auto plan = routed_plan(route);
    Router router(route, plan);
    Page page(1);
    page.append("1");
    Message message;
    const auto now = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'000'000));
    router.route(page, 0, message, now);
    EXPECT_EQ(message.due_ms, 1'030'000);
}

TEST(Router, DueColumnGivesTheServersEpochInMilliseconds) {
    RouteSpec route;
    route.due_column = "due";
    auto plan = routed_plan(route);
    Router router(route, plan);
    Page page(2);
    page.append("1");
    page.append("1700000000.250000");
    page.append("2");
    page.append_null();
    Message message;
    router.route(page, 0, message, std::chrono::system_clock::now());
    EXPECT_EQ(message.due_ms, 1'700'000'000'250);
    router.route(page, 1, message, std::chrono::system_clock::now());
    EXPECT_EQ(message.due_ms, 0);
}

TEST(Router, RejectsADueColumnThatIsNotATime) {
    RouteSpec route;
    route.due_column = "amount";
    auto plan = routed_plan(route);
    EXPECT_THROW(Router(route, plan), UsageError);
}

// A text column's values would all fall to the lowest level (or compare as text): refused up front.
TEST(Router, RejectsAPriorityColumnThatIsNotNumeric) {
    RouteSpec route;
    route.priority_column = "note";
    route.levels = parse_priority_levels("high:100,low");
    auto plan = routed_plan(route);
    try {
        Router router(route, plan);
        FAIL() << "accepted";
    } catch (const UsageError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "priority column 'note' is varchar(20): expected a numeric column (integer, DECIMAL, FLOAT or "
                  "DOUBLE)");
    }
}

}  // namespace
}  // namespace rowpump
