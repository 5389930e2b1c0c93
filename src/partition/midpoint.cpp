#include "partition/midpoint.hpp"

#include <algorithm>

#include "partition/key_index.hpp"
#include "rowpump/partition.hpp"

namespace rowpump {

namespace {

// OFFSET reads every entry it skips. A million key entries take well under a second, while the victim
// keeps reading; past that the thief simply takes more than half, and its range can be split again.
constexpr std::uint64_t max_offset = 1'000'000;

template <class Integer>
std::optional<KeyValue> integer_midpoint(const KeyValue& first, const KeyValue& last) {
    // split_points(first, last, 2) is overflow-safe and lands in (first, last]: both halves hold a key.
    const auto points = split_points(std::get<Integer>(first[0]), std::get<Integer>(last[0]), 2);
    if (points.empty()) return std::nullopt;
    return KeyValue{points.front()};
}

}  // namespace

std::optional<KeyValue> find_midpoint(mysql::Connection& connection, const ReadPlan& plan,
                                      const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                      std::uint64_t remaining_rows_estimate, bool after_inclusive) {
    if (remaining_rows_estimate < 2) return std::nullopt;
    KeyIndex index(connection, plan);
    const PageBounds bounds{after, after_inclusive && after.has_value(), before};
    const auto& key = index.columns();

    // A single integer key: arithmetic between the real first and last keys left, two index descents.
    if (key.size() == 1 &&
        (key[0].kind == ColumnKind::signed_integer || key[0].kind == ColumnKind::unsigned_integer)) {
        const auto first = index.nth(bounds, 0);
        const auto last = first ? index.last(bounds) : std::nullopt;
        if (!first || !last) return std::nullopt;
        return key[0].kind == ColumnKind::signed_integer ? integer_midpoint<std::int64_t>(*first, *last)
                                                         : integer_midpoint<std::uint64_t>(*first, *last);
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

}  // namespace rowpump
