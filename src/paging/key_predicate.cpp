#include "paging/key_predicate.hpp"

#include <charconv>

#include "rowpump/error.hpp"

namespace rowpump {

SqlFragment& SqlFragment::and_also(const SqlFragment& other) {
    if (other.empty()) return *this;
    sql = sql.empty() ? other.sql : sql + " AND " + other.sql;
    params.insert(params.end(), other.params.begin(), other.params.end());
    return *this;
}

KeyExpression KeyExpression::of(const std::vector<Column>& key_columns, const std::string& qualifier) {
    KeyExpression key;
    for (const auto& column : key_columns) {
        key.columns.push_back((qualifier.empty() ? "" : qualifier + ".") + mysql::quote_identifier(column.name));
        // A DECIMAL compared with a text parameter is compared as DOUBLE; cast the value to compare exactly.
        if (column.kind == ColumnKind::decimal)
            key.placeholders.push_back("CAST(? AS DECIMAL(" + std::to_string(column.numeric_precision) + "," +
                                       std::to_string(column.numeric_scale) + "))");
        else
            key.placeholders.push_back("?");
    }
    return key;
}

namespace {

void check_arity(const KeyExpression& key, const KeyValue& value) {
    if (key.columns.size() != value.size())
        throw UsageError("a key value has " + std::to_string(value.size()) + " parts but the key has " +
                         std::to_string(key.columns.size()) + " columns");
}

// Builds  c0 OP0 ? OR (c0 = ? AND (c1 OP ? OR (c1 = ? AND ... cn LAST ?)))  for columns from `first`.
void nested_comparison(const KeyExpression& key, const KeyValue& value, std::size_t first, const char* strict,
                       const char* last, SqlFragment& out) {
    const std::size_t n = key.columns.size();
    for (std::size_t i = first; i < n; ++i) {
        const bool final_column = i + 1 == n;
        out.sql += key.columns[i] + (final_column ? last : strict) + key.placeholders[i];
        out.params.push_back(value[i]);
        if (final_column) break;
        out.sql += " OR (" + key.columns[i] + " = " + key.placeholders[i] + " AND (";
        out.params.push_back(value[i]);
    }
    for (std::size_t i = first; i + 1 < n; ++i) out.sql += "))";
}

SqlFragment bounded(const KeyExpression& key, const KeyValue& value, const char* leading, const char* strict,
                    const char* last) {
    check_arity(key, value);
    SqlFragment out;
    if (key.columns.size() == 1) {
        out.sql = key.columns[0] + last + key.placeholders[0];
        out.params.push_back(value[0]);
        return out;
    }
    // The leading bound on the first column is implied by the rest; it is there so the optimizer sees a
    // range on the index's first column.
    out.sql = key.columns[0] + leading + key.placeholders[0] + " AND (";
    out.params.push_back(value[0]);
    nested_comparison(key, value, 0, strict, last, out);
    out.sql += ")";
    return out;
}

}  // namespace

SqlFragment key_after(const KeyExpression& key, const KeyValue& value, bool inclusive) {
    return bounded(key, value, " >= ", " > ", inclusive ? " >= " : " > ");
}

SqlFragment key_before(const KeyExpression& key, const KeyValue& value) {
    return bounded(key, value, " <= ", " < ", " < ");
}

SqlFragment key_at_most(const KeyExpression& key, const KeyValue& value) {
    return bounded(key, value, " <= ", " < ", " <= ");
}

std::string column_list(const KeyExpression& key) {
    std::string out;
    for (const auto& column : key.columns) out += (out.empty() ? "" : ", ") + column;
    return out;
}

KeyPart key_part_from_text(const Column& column, std::string_view text) {
    if (column.kind == ColumnKind::signed_integer) {
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc() && end == text.data() + text.size()) return value;
    } else if (column.kind == ColumnKind::unsigned_integer || column.kind == ColumnKind::bit) {
        std::uint64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc() && end == text.data() + text.size()) return value;
    }
    return std::string(text);
}

std::string key_has_null(const std::vector<Column>& key_columns) {
    std::string condition;
    for (const auto& column : key_columns)
        if (column.nullable)
            condition += (condition.empty() ? "" : " OR ") + mysql::quote_identifier(column.name) + " IS NULL";
    return condition.empty() ? condition : "(" + condition + ")";
}

SqlFragment key_has_no_null(const std::vector<Column>& key_columns) {
    SqlFragment out;
    for (const auto& column : key_columns)
        if (column.nullable) out.and_also({mysql::quote_identifier(column.name) + " IS NOT NULL", {}});
    return out;
}

}  // namespace rowpump
