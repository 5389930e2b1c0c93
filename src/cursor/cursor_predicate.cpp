#include "cursor/cursor_predicate.hpp"

namespace rowpump {

namespace {

const char* strictly_after(SortDirection direction) { return direction == SortDirection::ascending ? " > " : " < "; }
const char* at_or_after(SortDirection direction) { return direction == SortDirection::ascending ? " >= " : " <= "; }

}  // namespace

SqlFragment sort_after(const KeyExpression& key, const std::vector<SortDirection>& directions, const KeyValue& value) {
    const std::size_t n = key.columns.size();
    if (value.size() != n || directions.size() != n)
        throw UsageError("a cursor value has " + std::to_string(value.size()) + " parts but the sort has " +
                         std::to_string(n) + " columns");
    SqlFragment out;
    if (n > 1) {
        out.sql = key.columns[0] + at_or_after(directions[0]) + key.placeholders[0] + " AND (";
        out.params.push_back(value[0]);
    }
    // c0 OP0 ? OR (c0 = ? AND (c1 OP1 ? OR (c1 = ? AND ... cn OPn ?)))
    for (std::size_t i = 0; i < n; ++i) {
        out.sql += key.columns[i] + strictly_after(directions[i]) + key.placeholders[i];
        out.params.push_back(value[i]);
        if (i + 1 == n) break;
        out.sql += " OR (" + key.columns[i] + " = " + key.placeholders[i] + " AND (";
        out.params.push_back(value[i]);
    }
    for (std::size_t i = 0; i + 1 < n; ++i) out.sql += "))";
    if (n > 1) out.sql += ")";
    return out;
}

}  // namespace rowpump
