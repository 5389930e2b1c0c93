#pragma once
// A cursor's sort, checked against the table: the columns (each NOT NULL, together unique), their
// directions, and how their values are written in SQL. Also the query's fingerprint, which a token
// carries so that it is only ever used for the query that made it.
#include <string>
#include <vector>

#include "paging/key_predicate.hpp"
#include "rowpump/cursor.hpp"

namespace rowpump {

struct SortOrder {
    std::vector<Column> columns;
    std::vector<SortDirection> directions;
    KeyExpression bare;       // `c`
    KeyExpression qualified;  // rp_t.`c`, for the jump's join

    // The same columns, every direction turned: what a backward page walks.
    std::vector<SortDirection> reversed() const;
};

// Checks that the sort's columns exist, appear once, are NOT NULL and include every column of a unique
// index (the primary key or another); throws UsageError naming the problem.
SortOrder check_sort(const TableInfo& table, const std::vector<SortColumn>& sort);

// The SQL ORDER BY list of `key` in `directions`: "`a` DESC, `b` ASC".
std::string order_by(const KeyExpression& key, const std::vector<SortDirection>& directions);

// A canonical description of the query (table, sort, filter, columns), hashed: tokens carry part of it
// and are signed over all of it.
std::string query_fingerprint(const TableInfo& table, const CursorSpec& spec);

}  // namespace rowpump
