#pragma once
// The statements of a cursor, as text with bound values (no connection: unit tests read them). They are
// built from paging/'s pieces (KeyExpression, SqlFragment, select_expression) as PageSql's are; PageSql
// itself pages one ascending key, a cursor's sort runs either way in each column.
#include <cstdint>
#include <string>
#include <optional>
#include <vector>

#include "cursor/sort_order.hpp"

namespace rowpump {

class CursorSql {
public:
    CursorSql(const TableInfo& table, const CursorSpec& spec, SortOrder order);

    // What each row carries: the spec's columns, then any sort column they lack.
    const std::vector<Column>& select_columns() const { return select_columns_; }
    // Where each sort column sits in select_columns().
    const std::vector<std::size_t>& sort_positions() const { return sort_positions_; }
    const SortOrder& order() const { return order_; }
    // Whether the list has a filter (index estimates cannot see one).
    bool filtered() const { return !filter_.empty(); }

    // SELECT cols FROM t WHERE filter [AND past `from`] ORDER BY sort LIMIT ?; backward walks the sort turned.
    SqlFragment page(bool backward, const std::optional<KeyValue>& from, std::size_t limit) const;
    // SELECT 1 FROM t WHERE filter AND past `from` LIMIT 1: whether any row lies that way.
    SqlFragment exists(bool backward, const KeyValue& from) const;
    // The sort columns only, through the sort's index: the next `limit` rows' values past `from`.
    SqlFragment sort_values(bool backward, const KeyValue& from, std::size_t limit) const;
    // Page by counting (FastPage's deferred join): the inner query skips `skip` entries of the sort's index
    // and takes `limit`, reading no row; the outer one reads only those rows.
    //   SELECT cols FROM t AS rp_t JOIN (SELECT sort FROM t WHERE filter ORDER BY sort LIMIT ?, ?) AS rp_page
    //   ON rp_t.c = rp_page.c ... ORDER BY sort
    // `from` narrows the inner query to the rows from a bookmark on (the approximate jump).
    SqlFragment jump(std::uint64_t skip, std::size_t limit, const SqlFragment& from = {}) const;

private:
    SqlFragment conditions(bool backward, const std::optional<KeyValue>& from) const;
    std::string select_list(const std::vector<Column>& columns, const std::string& qualifier) const;

    std::string table_;
    // table_ FORCE INDEX (the indexes that hold the sort's order), for a page without a filter: on a small
    // table MariaDB 10.11 otherwise sorts a full scan for ORDER BY ... LIMIT 21 (2001 rows read of 2000).
    std::string ordered_table_;
    SortOrder order_;
    SqlFragment filter_;
    std::vector<Column> select_columns_;
    std::vector<std::size_t> sort_positions_;
};

}  // namespace rowpump
