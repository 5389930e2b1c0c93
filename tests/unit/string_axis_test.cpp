// The probes of a text key's axis (src/partition/string_axis.*), from ranks given as a collation would
// give them: they run in the collation's order as offsets grow, start at or below the lowest key and end
// at or below the highest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "partition/string_axis.hpp"

namespace rowpump {
namespace {

// Ranks as a binary collation gives them: byte order.
std::vector<std::size_t> binary_ranks(const std::vector<std::string>& candidates) {
    std::vector<std::string> sorted = candidates;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::size_t> ranks;
    for (const auto& c : candidates) ranks.push_back(std::lower_bound(sorted.begin(), sorted.end(), c) - sorted.begin());
    return ranks;
}

std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// Ranks as an ASCII case-insensitive collation gives them: 'a' and 'A' share one.
std::vector<std::size_t> folded_ranks(const std::vector<std::string>& candidates) {
    std::vector<std::string> folded;
    for (const auto& c : candidates) folded.push_back(lowered(c));
    std::vector<std::string> sorted = folded;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<std::size_t> ranks;
    for (const auto& c : folded) ranks.push_back(std::lower_bound(sorted.begin(), sorted.end(), c) - sorted.begin());
    return ranks;
}

template <class Less>
void expect_probes_in_order(const StringAxis& axis, const std::string& lo, const std::string& hi, Less less) {
    ASSERT_GT(axis.width(), 0u);
    EXPECT_FALSE(less(lo, axis.at(0))) << axis.at(0) << " is above the lowest key " << lo;
    EXPECT_FALSE(less(hi, axis.at(axis.width()))) << axis.at(axis.width()) << " is above the highest key " << hi;
    std::string previous = axis.at(0);
    for (std::uint64_t step = 1; step <= 1000; ++step) {
        const std::uint64_t offset = axis.width() / 1000 * step;
        const std::string probe = axis.at(offset);
        if (offset > 0 && probe != previous) {
            EXPECT_TRUE(less(previous, probe)) << previous << " then " << probe << " at offset " << offset;
        }
        previous = probe;
    }
}

TEST(StringAxisTest, ProbesRunInByteOrderUnderABinaryCollation) {
    const std::string lo = "order-2024-0000013", hi = "order-2024-0064987";
    const auto candidates = StringAxis::candidates(lo, hi);
    const auto axis = StringAxis::from_ranks(lo, hi, candidates, binary_ranks(candidates));
    ASSERT_TRUE(axis);
    EXPECT_EQ(axis->at(0).rfind("order-2024-00", 0), 0u) << "the common prefix starts every probe";
    expect_probes_in_order(*axis, lo, hi, std::less<std::string>());
}

TEST(StringAxisTest, ProbesRunInCaseInsensitiveOrderAndCharactersThatCompareEqualShareADigit) {
    const std::string lo = "a0001", hi = "Zebra";
    const auto candidates = StringAxis::candidates(lo, hi);
    const auto axis = StringAxis::from_ranks(lo, hi, candidates, folded_ranks(candidates));
    ASSERT_TRUE(axis);
    expect_probes_in_order(*axis, lo, hi, [](const std::string& a, const std::string& b) { return lowered(a) < lowered(b); });
    for (std::uint64_t step = 0; step <= 100; ++step) {
        const std::string probe = axis->at(axis->width() / 100 * step);
        // 'A' comes before 'a' among the candidates, so it writes their shared digit.
        EXPECT_EQ(probe.find_first_of("abcdefghijklmnopqrstuvwxyz"), std::string::npos)
            << probe << ": upper and lower case are one digit, written by its first candidate";
    }
}

TEST(StringAxisTest, CharactersBeyondAsciiInTheEndsAreDigitsToo) {
    const std::string lo = "\xC3\xA9t\xC3\xA9", hi = "\xC3\xBC" "ber";  // "été", "über"
    const auto candidates = StringAxis::candidates(lo, hi);
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), "\xC3\xA9"), candidates.end());
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), "\xC3\xBC"), candidates.end());
    const auto axis = StringAxis::from_ranks(lo, hi, candidates, binary_ranks(candidates));
    ASSERT_TRUE(axis);
    expect_probes_in_order(*axis, lo, hi, std::less<std::string>());
}

TEST(StringAxisTest, NoAxisWhenTheEndsAreOutOfOrderOrTheRanksDoNotFit) {
    const auto candidates = StringAxis::candidates("b", "a");
    EXPECT_FALSE(StringAxis::from_ranks("b", "a", candidates, binary_ranks(candidates)));
    EXPECT_FALSE(StringAxis::from_ranks("a", "b", candidates, {}));
    EXPECT_FALSE(StringAxis::from_ranks("same", "same", StringAxis::candidates("same", "same"),
                                        binary_ranks(StringAxis::candidates("same", "same"))));
}

}  // namespace
}  // namespace rowpump
