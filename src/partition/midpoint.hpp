#pragma once
// Work stealing: where to cut the unread remainder of a range so that an idle worker can take its upper
// part while the reader that owned it keeps the lower part.
#include <cstdint>
#include <optional>

#include "mysql/connection.hpp"
#include "rowpump/key.hpp"
#include "rowpump/reader.hpp"

namespace rowpump {

// A key strictly after `after` and strictly before `before` that splits the plan's rows between them
// about in half, or nullopt when there is nothing to split (fewer than 2 rows estimated, or fewer than two
// distinct keys there). The victim then keeps (after, mid) — set_upper_bound(mid) — and the thief reads
// [mid, before).
//   after:  the victim's position (the last key it delivered), exclusive; nullopt: from the start.
//           For a reader that has not delivered a row yet but whose range has a lower bound, pass that
//           bound with after_inclusive = true: nullopt would mean the start of the table, below the range.
//   before: the range's upper bound, exclusive; nullopt: to the end.
// Deciding whether a split is worth it (say, at least two pages left) is the scheduler's call.
std::optional<KeyValue> find_midpoint(mysql::Connection& connection, const ReadPlan& plan,
                                      const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                      std::uint64_t remaining_rows_estimate, bool after_inclusive = false);

// True when the server finds `position`, a key a reader delivered, strictly before `bound`: in
// [position, bound), one index descent. A thief checks that the split key it computed earlier still lies
// after an owner's newer checkpoint; an owner, that a page it read before it learned of a split lies below
// the split key. A position whose row has been deleted or filtered out since reads as false.
bool key_before(mysql::Connection& connection, const ReadPlan& plan, const KeyValue& position, const KeyValue& bound);

}  // namespace rowpump
