#include "route/router.hpp"

#include <gtest/gtest.h>

#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {
namespace {

ReadPlan routed_plan(const RouteSpec& route, const std::string& celery_priority_column = "") {
    ReadPlan plan;
    plan.table.schema = "db";
    plan.table.name = "t";
    plan.table.columns = {{"id", "int", ColumnKind::signed_integer, false, 0, 0},
                          {"amount", "int", ColumnKind::signed_integer, true, 0, 0},
                          {"due", "datetime", ColumnKind::datetime, true, 0, 0},
                          {"note", "varchar(20)", ColumnKind::text, true, 0, 0}};
    plan.columns = {plan.table.columns[0]};
    plan.key.columns = {"id"};
    Router::request_inputs(route, celery_priority_column, plan.spec);
    return plan;
}

// The level of each row of a page of (id, the routed column's value), one row per value and a last with
// NULL; every row ready now.
std::vector<int> routed_levels(const Router& router, std::initializer_list<const char*> values) {
    Page page(2);
    for (const char* value : values) {
        page.append("1");
        page.append(value);
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
    return levels;
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
    const Router router(route, "", plan);
    const std::vector<int> levels = routed_levels(router, {"500", "100", "99", "10", "-3"});
    EXPECT_EQ(levels, (std::vector<int>{0, 0, 1, 1, 2, 2}));
}

TEST(Router, FixedDelayIsCountedFromNow) {
    RouteSpec route;
    route.delay = std::chrono::seconds(30);
    auto plan = routed_plan(route);
    Router router(route, "", plan);
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
    Router router(route, "", plan);
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
    EXPECT_THROW(Router(route, "", plan), UsageError);
}

// A text column's values would all fall to the lowest level (or compare as text): refused up front.
TEST(Router, RejectsAPriorityColumnThatIsNotNumeric) {
    RouteSpec route;
    route.priority_column = "note";
    route.levels = parse_priority_levels("high:100,low");
    auto plan = routed_plan(route);
    try {
        Router router(route, "", plan);
        FAIL() << "accepted";
    } catch (const UsageError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "priority column 'note' is varchar(20): expected a numeric column (integer, DECIMAL, FLOAT or "
                  "DOUBLE)");
    }
}

// A Celery priority column: each row's value is its priority (NULL: 0), read as kombu reads an int 0..9.
TEST(Router, CeleryPriorityColumnGivesEachRowItsPriority) {
    auto plan = routed_plan({}, "amount");
    const Router router({}, "amount", plan);
    ASSERT_TRUE(router.routes_celery_priority());
    const std::vector<int> levels = routed_levels(router, {"0", "3", "8", "9"});
    EXPECT_EQ(levels, (std::vector<int>{0, 3, 8, 9, 0}));
    EXPECT_FALSE(Router({}, "", routed_plan({})).routes_celery_priority());
}

// Outside 0..9 kombu would clamp the value silently: the run stops instead, naming the row and the column.
TEST(Router, CeleryPriorityOutsideKombusBoundsNamesTheRowAndTheColumn) {
    auto plan = routed_plan({}, "amount");
    Router router({}, "amount", plan);
    router.name_rows_by({0}, {"id"});
    for (const char* bad : {"10", "-1", "255"}) {
        Page page(2);
        page.append("17");
        page.append(bad);
        Message message;
        try {
            router.route(page, 0, message, std::chrono::system_clock::now());
            FAIL() << bad << " accepted";
        } catch (const config::OptionFailure& error) {
            const std::string what = error.what();
            EXPECT_NE(what.find("(id) = (17)"), std::string::npos) << what;
            EXPECT_NE(what.find("holds " + std::string(bad) + " in `amount`"), std::string::npos) << what;
            EXPECT_NE(what.find("--celery-priority-column"), std::string::npos) << what;
            EXPECT_NE(what.find("no job of its page was written"), std::string::npos) << what;
        }
    }
}

TEST(Router, RejectsACeleryPriorityColumnThatIsNotAnInteger) {
    for (const char* column : {"note", "due"}) {
        auto plan = routed_plan({}, column);
        try {
            const Router router({}, column, plan);
            FAIL() << column << " accepted";
        } catch (const config::OptionError& error) {
            EXPECT_NE(std::string(error.what()).find("--celery-priority-column '" + std::string(column) + "'"),
                      std::string::npos)
                << error.what();
        }
    }
}

}  // namespace
}  // namespace rowpump
