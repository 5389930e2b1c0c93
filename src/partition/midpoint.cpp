#include "partition/midpoint.hpp"

#include <algorithm>

#include "partition/key_index.hpp"
#include "partition/split_points.hpp"
#include "rowpump/partition.hpp"

namespace rowpump {

namespace {

// OFFSET reads every entry it skips. A million key entries take well under a second, while the victim
// keeps reading; past that the thief simply takes more than half, and its range can be split again.
constexpr std::uint64_t max_offset = 1'000'000;

// Bisection on the key's value stops once the two parts' estimates are this close (a tenth of their sum),
// or after this many steps (a 64-bit span halves to one value in 64).
constexpr std::uint64_t balance_tolerance_divisor = 10;
constexpr int max_bisection_steps = 64;

// A single integer key: bisection on the key's value between the real first and last keys left, each step
// weighing the optimizer's estimates (index dives, no scan) of the rows below and above it. The plain
// arithmetic middle of a skewed key (most rows in a sliver of its span) would hand the thief the empty
// part. Both parts are estimated, rather than one against the whole: InnoDB overestimates long ranges more
// than short ones, and parts of about the same size are biased alike.
template <class Integer>
std::optional<KeyValue> integer_midpoint(KeyIndex& index, const PageBounds& bounds, const KeyValue& first,
                                         const KeyValue& last) {
    Integer low = std::get<Integer>(first[0]);
    Integer high = std::get<Integer>(last[0]);
    std::optional<Integer> best;
    std::uint64_t best_error = 0;
    for (int step = 0; step < max_bisection_steps; ++step) {
        // split_points(low, high, 2) is overflow-safe and lands in (low, high], within (first, last]: both
        // parts hold a key.
        const auto points = split_points(low, high, 2);
        if (points.empty()) break;
        const Integer middle = points.front();
        PageBounds lower = bounds;
        lower.before = KeyValue{middle};
        const PageBounds upper{KeyValue{middle}, true, bounds.before};
        const std::uint64_t below = index.estimate(lower);
        const std::uint64_t above = index.estimate(upper);
        const std::uint64_t error = below > above ? below - above : above - below;
        if (!best || error < best_error) {
            best = middle;
            best_error = error;
        }
        if (error <= (below + above) / balance_tolerance_divisor) break;
        if (below < above) {
            low = middle;
        } else {
            if (middle - 1 <= low) break;
            high = middle - 1;
        }
    }
    if (!best) return std::nullopt;
    return KeyValue{*best};
}

}  // namespace

std::optional<KeyValue> find_midpoint(mysql::Connection& connection, const ReadPlan& plan,
                                      const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                      std::uint64_t remaining_rows_estimate, bool after_inclusive) {
    if (remaining_rows_estimate < 2) return std::nullopt;
    KeyIndex index(connection, plan);
    const PageBounds bounds{after, after_inclusive && after.has_value(), before};
    const auto& key = index.columns();

    // A single integer key: bisection between the real first and last keys left (two index descents).
    if (key.size() == 1 &&
        (key[0].kind == ColumnKind::signed_integer || key[0].kind == ColumnKind::unsigned_integer)) {
        const auto first = index.nth(bounds, 0);
        const auto last = first ? index.last(bounds) : std::nullopt;
        if (!first || !last) return std::nullopt;
        return key[0].kind == ColumnKind::signed_integer
                   ? integer_midpoint<std::int64_t>(index, bounds, *first, *last)
                   : integer_midpoint<std::uint64_t>(index, bounds, *first, *last);
    }

    // Any other key: the key halfway through the remainder by position. An offset of at least 1 keeps
    // the first key left with the victim, so the midpoint is strictly after `after`.
    if (auto middle = index.nth(bounds, std::clamp<std::uint64_t>(remaining_rows_estimate / 2, 1, max_offset)))
        return middle;
    // The estimate was too high: count what is really left (bounded) and cut that in half.
    const std::uint64_t left = index.count(bounds, 2 * max_offset);
    if (left < 2) return std::nullopt;
    return index.nth(bounds, left / 2);
}

bool key_before(mysql::Connection& connection, const ReadPlan& plan, const KeyValue& position, const KeyValue& bound) {
    KeyIndex index(connection, plan);
    return index.nth(PageBounds{position, true, bound}, 0).has_value();
}

}  // namespace rowpump
