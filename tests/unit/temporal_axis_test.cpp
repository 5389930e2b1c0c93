// A date or datetime key's axis (src/partition/temporal_axis.*): its ends map back to themselves, the
// calendar's leap days are counted, and offsets written back as text run in time order.
#include <gtest/gtest.h>

#include "partition/temporal_axis.hpp"

namespace rowpump {
namespace {

TEST(TemporalAxisTest, DatetimeEndsMapBackToThemselves) {
    const auto axis = TemporalAxis::between("2024-02-28 23:59:59.5", "2024-03-01 00:00:01", false);
    ASSERT_TRUE(axis);
    EXPECT_EQ(axis->width(), 86'401'500'000u);  // 2024 has a 29th of February
    EXPECT_EQ(axis->at(0), "2024-02-28 23:59:59.500000");
    EXPECT_EQ(axis->at(axis->width()), "2024-03-01 00:00:01.000000");
    EXPECT_EQ(axis->at(500'000), "2024-02-29 00:00:00.000000");
}

TEST(TemporalAxisTest, DatesCountDaysAcrossCenturies) {
    const auto axis = TemporalAxis::between("1899-12-31", "2100-03-01", true);
    ASSERT_TRUE(axis);
    EXPECT_EQ(axis->at(0), "1899-12-31");
    EXPECT_EQ(axis->at(1), "1900-01-01");
    EXPECT_EQ(axis->at(axis->width()), "2100-03-01");
    std::string previous = axis->at(0);
    for (std::uint64_t offset = 1; offset <= axis->width(); offset += 97) {
        const std::string day = axis->at(offset);
        EXPECT_LT(previous, day);  // ISO dates sort as text
        previous = day;
    }
}

TEST(TemporalAxisTest, NoAxisForZeroDatesOddTextOrEndsOutOfOrder) {
    EXPECT_FALSE(TemporalAxis::between("0000-00-00 00:00:00", "2024-01-01 00:00:00", false));
    EXPECT_FALSE(TemporalAxis::between("2024-01-02", "2024-01-01", true));
    EXPECT_FALSE(TemporalAxis::between("2024-01-01", "2024-01-01", true));
    EXPECT_FALSE(TemporalAxis::between("2024-01-01 10:00", "2024-01-02 10:00:00", false));
    EXPECT_FALSE(TemporalAxis::between("2024-13-01", "2024-12-01", true));
}

}  // namespace
}  // namespace rowpump
