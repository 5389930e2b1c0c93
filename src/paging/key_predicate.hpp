#pragma once
// SQL conditions that bound a key, in the expanded form MySQL and MariaDB serve with a range scan on the
// key's index. Row constructors, (a, b) > (?, ?), are avoided: MariaDB does not use an index for them.
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "rowpump/key.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

// SQL text with its bound values, in placeholder order.
struct SqlFragment {
    std::string sql;
    std::vector<mysql::Param> params;

    bool empty() const { return sql.empty(); }
    // Joins with AND, keeping placeholder order; empty fragments are skipped.
    SqlFragment& and_also(const SqlFragment& other);
};

// The key's columns as the queries see them: the quoted column (optionally qualified by a table alias),
// and the placeholder each value binds through (a CAST where binding as text would compare inexactly).
struct KeyExpression {
    std::vector<std::string> columns;
    std::vector<std::string> placeholders;

    static KeyExpression of(const std::vector<Column>& key_columns, const std::string& qualifier = "");
};

// key > value (key >= value when inclusive).
// (a, b) > (x, y) becomes  a >= ? AND (a > ? OR (a = ? AND b > ?))  with the values x, x, x, y.
SqlFragment key_after(const KeyExpression& key, const KeyValue& value, bool inclusive);
// key < value.  (a, b) < (x, y) becomes  a <= ? AND (a < ? OR (a = ? AND b < ?)).
SqlFragment key_before(const KeyExpression& key, const KeyValue& value);
// key <= value.  (a, b) <= (x, y) becomes  a <= ? AND (a < ? OR (a = ? AND b <= ?)).
SqlFragment key_at_most(const KeyExpression& key, const KeyValue& value);
// The key has a NULL: (a IS NULL OR b IS NULL) over its nullable columns; "" when none is nullable.
std::string key_has_null(const std::vector<Column>& key_columns);
// The key has no NULL: a IS NOT NULL AND b IS NOT NULL over its nullable columns, each itself a range the
// key's index serves (NOT (a IS NULL OR ...) is not); empty when none is nullable.
SqlFragment key_has_no_null(const std::vector<Column>& key_columns);

// "a, b" (for ORDER BY and SELECT lists).
std::string column_list(const KeyExpression& key);

// Turns the server's text of a key column into the value bound later: integers stay integers.
KeyPart key_part_from_text(const Column& column, std::string_view text);

}  // namespace rowpump
