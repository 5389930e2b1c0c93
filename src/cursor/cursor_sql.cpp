#include "cursor/cursor_sql.hpp"

#include "cursor/cursor_predicate.hpp"

#include <algorithm>

#include "mysql/connection.hpp"
#include "paging/select_expression.hpp"

namespace rowpump {

namespace {

SqlFragment equals_filter(const TableInfo& table, const CursorSpec& spec) {
    SqlFragment filter;
    for (const auto& [name, value] : spec.equals) {
        const Column& column = table.column(name);
        const KeyExpression expression = KeyExpression::of({column});
        filter.and_also({expression.columns[0] + " = " + expression.placeholders[0], {key_part_from_text(column, value)}});
    }
    return filter;
}

// The indexes whose columns are the sort's, in its order, or its leading ones with the primary key after
// them (InnoDB's secondary indexes end in it). Which of them holds each column's direction is the
// optimizer's to see: the table's description has no index directions.
std::string ordered_table(const TableInfo& table, const std::vector<Column>& sort) {
    std::string names;
    for (const auto& index : table.indexes) {
        std::vector<std::string> columns = index.columns;
        if (index.name != "PRIMARY")
            for (const auto& key : table.primary_key)
                if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
        bool matches = columns.size() >= sort.size();
        for (std::size_t i = 0; matches && i < sort.size(); ++i) matches = columns[i] == sort[i].name;
        if (matches) names += (names.empty() ? "" : ", ") + mysql::quote_identifier(index.name);
    }
    return names.empty() ? table.quoted_name() : table.quoted_name() + " FORCE INDEX (" + names + ")";
}

SqlFragment with_limit(SqlFragment fragment, std::size_t limit) {
    fragment.params.push_back(static_cast<std::int64_t>(limit));
    return fragment;
}

}  // namespace

CursorSql::CursorSql(const TableInfo& table, const CursorSpec& spec, SortOrder order)
    : table_(table.quoted_name()),
      ordered_table_(ordered_table(table, order.columns)),
      order_(std::move(order)),
      filter_(equals_filter(table, spec)) {
    if (spec.columns.empty())
        select_columns_ = table.columns;
    else
        for (const auto& name : spec.columns) select_columns_.push_back(table.column(name));
    for (const auto& column : order_.columns) {
        std::size_t at = 0;
        while (at < select_columns_.size() && select_columns_[at].name != column.name) ++at;
        if (at == select_columns_.size()) select_columns_.push_back(column);
        sort_positions_.push_back(at);
    }
}

std::string CursorSql::select_list(const std::vector<Column>& columns, const std::string& qualifier) const {
    std::string out;
    for (const auto& column : columns) out += (out.empty() ? "" : ", ") + select_expression(column, qualifier);
    return out;
}

SqlFragment CursorSql::conditions(bool backward, const std::optional<KeyValue>& from) const {
    SqlFragment out = filter_;
    if (from) out.and_also(sort_after(order_.bare, backward ? order_.reversed() : order_.directions, *from));
    if (out.empty()) out.sql = "TRUE";
    return out;
}

SqlFragment CursorSql::page(bool backward, const std::optional<KeyValue>& from, std::size_t limit) const {
    SqlFragment where = conditions(backward, from);
    return with_limit({"SELECT " + select_list(select_columns_, "") + " FROM " + (filter_.empty() ? ordered_table_ : table_) +
                           " WHERE " + where.sql + " ORDER BY " +
                           order_by(order_.bare, backward ? order_.reversed() : order_.directions) + " LIMIT ?",
                       where.params},
                      limit);
}

SqlFragment CursorSql::exists(bool backward, const KeyValue& from) const {
    SqlFragment where = conditions(backward, from);
    return {"SELECT 1 FROM " + table_ + " WHERE " + where.sql + " LIMIT 1", where.params};
}

SqlFragment CursorSql::sort_values(bool backward, const KeyValue& from, std::size_t limit) const {
    SqlFragment where = conditions(backward, from);
    return with_limit({"SELECT " + select_list(order_.columns, "") + " FROM " + table_ + " WHERE " + where.sql +
                           " ORDER BY " + order_by(order_.bare, backward ? order_.reversed() : order_.directions) +
                           " LIMIT ?",
                       where.params},
                      limit);
}

SqlFragment CursorSql::jump(std::uint64_t skip, std::size_t limit, const SqlFragment& from) const {
    SqlFragment where = conditions(false, std::nullopt);
    if (!from.empty()) {
        if (where.sql == "TRUE") where = {};
        where.and_also(from);
    }
    std::string join;
    for (std::size_t i = 0; i < order_.columns.size(); ++i)
        join += (i ? " AND " : "") + order_.qualified.columns[i] + " = rp_page." + order_.bare.columns[i];
    SqlFragment out{"SELECT " + select_list(select_columns_, "rp_t") + " FROM " + table_ + " AS rp_t JOIN (SELECT " +
                        column_list(order_.bare) + " FROM " + table_ + " WHERE " + where.sql + " ORDER BY " +
                        order_by(order_.bare, order_.directions) + " LIMIT ?, ?) AS rp_page ON " + join + " ORDER BY " +
                        order_by(order_.qualified, order_.directions),
                    where.params};
    out.params.push_back(static_cast<std::int64_t>(skip));
    out.params.push_back(static_cast<std::int64_t>(limit));
    return out;
}

}  // namespace rowpump
