// The one reader of the numbers a user gives (src/bounded_number.hpp): the command line's --rate and
// --max-lag and the endpoint's POST /rate and /max-lag take the same text within the same bounds.
#include <gtest/gtest.h>

#include <string>

#include "bounded_number.hpp"
#include "http/http_server.hpp"
#include "throttle/control_routes.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump {
namespace {

TEST(BoundedNumber, RateIsZeroOrFromOneToABillion) {
    for (const char* good : {"0", "0.0", "1", "2000", "1e3", "2.5", "1000000000"})
        EXPECT_TRUE(parse_bounded_number(good, rate_bounds)) << good;
    EXPECT_EQ(*parse_bounded_number("1e3", rate_bounds), 1000);
    for (const char* bad : {"1e-300", "0.5", "0x10", "  5", "5 ", "-0", "-5", "+5", "nan", "inf", "", "1e400",
                            "2e9", "5abc", "1,5"})
        EXPECT_FALSE(parse_bounded_number(bad, rate_bounds)) << bad;
}

TEST(BoundedNumber, MaxLagIsFromAMillisecondToTenYears) {
    for (const char* good : {"0.001", "1.5", "315360000"}) EXPECT_TRUE(parse_bounded_number(good, max_lag_bounds)) << good;
    for (const char* bad : {"0", "1e-300", "1e308", "315360001", "-1"})
        EXPECT_FALSE(parse_bounded_number(bad, max_lag_bounds)) << bad;
}

TEST(BoundedNumber, DescribesItsBounds) {
    EXPECT_EQ(describe(rate_bounds), "0 or a number from 1 to 1000000000");
    EXPECT_EQ(describe(max_lag_bounds), "a number from 0.001 to 315360000");
    EXPECT_EQ(describe(NumberBounds{0, std::nullopt, false}), "a number of at least 0");
}

http::Response post(ThrottleGate& gate, const std::string& path,
                    std::vector<std::pair<std::string, std::string>> query) {
    return throttle::handle_control(gate, http::Request{"POST", path, std::move(query), {}});
}

// The endpoint's values, through its handler: what the command line refuses, it refuses, and a value
// given twice is refused rather than one of them picked.
TEST(ControlRoutes, RateAndMaxLagTakeTheCommandLinesNumbersOnce) {
    ThrottleGate gate(ThrottleSpec{}, MySqlOptions{}, 1000);
    for (const char* bad : {"1e-300", "0x10", "  5", "-0", "abc", ""}) {
        const http::Response refused = post(gate, "/rate", {{"value", bad}});
        EXPECT_EQ(refused.status, 400) << bad << ": " << refused.body;
        EXPECT_NE(refused.body.find("0 or a number from 1 to 1000000000"), std::string::npos) << refused.body;
    }
    EXPECT_EQ(post(gate, "/rate", {{"value", "1"}, {"value", "2"}}).status, 400);
    EXPECT_EQ(post(gate, "/rate", {}).status, 400);
    EXPECT_EQ(gate.rate().rate(), 1000) << "nothing refused changed the rate";
    EXPECT_EQ(post(gate, "/rate", {{"value", "5000"}}).status, 200);
    EXPECT_EQ(gate.rate().rate(), 5000);
    EXPECT_EQ(post(gate, "/rate", {{"value", "0"}}).body, "rate: no cap\n");
    EXPECT_EQ(gate.rate().rate(), 0);

    for (const char* bad : {"1e-300", "1e308", "0"}) EXPECT_EQ(post(gate, "/max-lag", {{"value", bad}}).status, 400) << bad;
    EXPECT_EQ(post(gate, "/max-lag", {{"value", "2.5"}}).body, "max lag 2.5 s\n");
    EXPECT_EQ(gate.view().max_lag_seconds, 2.5);
}

}  // namespace
}  // namespace rowpump
