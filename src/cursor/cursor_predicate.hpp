#pragma once
// "After this row" for a sort whose columns may run in different directions. A row-value comparison,
// (a, b) > (?, ?), cannot mix directions (and MariaDB uses no index for it), so the condition is the
// expanded OR that paging/key_predicate writes, each column with its own operator:
//   a ASC, b DESC after (x, y):  a >= ? AND (a > ? OR (a = ? AND b < ?))   values x, x, x, y
// The leading bound on the first column is implied by the rest; it gives the optimizer a range on the
// index's first column.
#include <vector>

#include "paging/key_predicate.hpp"
#include "rowpump/cursor.hpp"

namespace rowpump {

// Rows strictly after `value` when walking `directions` (pass SortOrder::reversed() for "before").
SqlFragment sort_after(const KeyExpression& key, const std::vector<SortDirection>& directions, const KeyValue& value);

}  // namespace rowpump
