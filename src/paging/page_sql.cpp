#include "paging/page_sql.hpp"

#include "paging/select_expression.hpp"

#include <algorithm>
#include <variant>

namespace rowpump {

namespace {

// Where `column` is among the plain (not computed) select columns; appended when absent.
std::size_t position_of(std::vector<Column>& columns, std::vector<std::string>& expressions, const Column& column) {
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == column.name && expressions[i].empty()) return i;
    columns.push_back(column);
    expressions.emplace_back();
    return columns.size() - 1;
}

// A computed column's expression with every {} replaced by the quoted (and qualified) column.
std::string computed_expression(const std::string& expression, const Column& column, const std::string& qualifier) {
    const std::string reference = (qualifier.empty() ? "" : qualifier + ".") + mysql::quote_identifier(column.name);
    std::string out;
    for (std::size_t at = 0;;) {
        const std::size_t hole = expression.find("{}", at);
        out += expression.substr(at, hole - at);
        if (hole == std::string::npos) return out;
        out += reference;
        at = hole + 2;
    }
}

// The page's SQL with the condition's values and then the LIMIT value bound.
SqlFragment limited(std::string sql, const SqlFragment& where, std::size_t limit) {
    SqlFragment out{std::move(sql), where.params};
    out.params.push_back(static_cast<std::int64_t>(limit));
    return out;
}

}  // namespace

bool has_null_key_pass(const ReadPlan& plan, const KeyRange& range) { return plan.null_key_rows > 0 && !range.lo; }

PageBounds first_page_bounds(Pass pass, const KeyRange& range) {
    if (pass == Pass::null_keys) return {std::nullopt, false, range.hi};
    return {range.lo, true, range.hi};
}

PageSql::PageSql(const ReadPlan& plan)
    : strategy_(plan.spec.strategy),
      table_(plan.table.quoted_name()),
      paged_table_(plan.key.index.empty() ? table_
                                          : table_ + " FORCE INDEX (" + mysql::quote_identifier(plan.key.index) + ")"),
      where_(plan.spec.where),
      select_columns_(plan.columns),
      computed_expressions_(plan.columns.size()) {
    for (const auto& computed : plan.spec.computed) {
        Column column = plan.table.column(computed.column);
        // A computed value is read as the server's text whatever the column's type.
        if (!computed.expression.empty()) column.kind = ColumnKind::other;
        select_columns_.push_back(column);
        computed_expressions_.push_back(computed.expression);
    }
    auto make_key = [&](const std::vector<Column>& columns) {
        PassKey key{columns, KeyExpression::of(columns), KeyExpression::of(columns, "rp_t"), {}};
        for (const auto& column : columns) key.positions.push_back(position_of(select_columns_, computed_expressions_, column));
        return key;
    };
    main_key_ = make_key(plan.key_columns());
    null_key_condition_ = key_has_null(main_key_.columns);
    if (plan.null_key_rows > 0) {
        std::vector<Column> primary;
        for (const auto& name : plan.table.primary_key) primary.push_back(plan.table.column(name));
        null_pass_key_ = make_key(primary);
    }
}

// The null pass finds its rows through the key's own index (IS NULL is a lookup there) and pages them by the
// primary key: no hint. Every other query walks the key's index in order, and says so.
const std::string& PageSql::table_for(Pass pass) const { return pass == Pass::main ? paged_table_ : table_; }

const std::vector<std::size_t>& PageSql::key_positions(Pass pass) const { return key(pass).positions; }
const std::vector<Column>& PageSql::key_columns(Pass pass) const { return key(pass).columns; }

SqlFragment PageSql::conditions(Pass pass, const PageBounds& bounds) const {
    SqlFragment out;
    if (!where_.empty()) out.and_also({"(" + where_ + ")", {}});
    if (!null_key_condition_.empty())
        out.and_also({pass == Pass::main ? "NOT " + null_key_condition_ : null_key_condition_, {}});
    // The null pass reads every NULL-key row of the table: a range's key bounds say nothing about them.
    if (bounds.after) out.and_also(key_after(key(pass).bare, *bounds.after, bounds.after_inclusive));
    if (bounds.before && pass == Pass::main) out.and_also(key_before(key(pass).bare, *bounds.before));
    if (out.empty()) out.sql = "TRUE";
    return out;
}

std::string PageSql::select_list(const std::string& qualifier) const {
    std::string out;
    for (std::size_t i = 0; i < select_columns_.size(); ++i) {
        const auto& expression = computed_expressions_[i];
        out += (out.empty() ? "" : ", ") +
               (expression.empty() ? select_expression(select_columns_[i], qualifier)
                                   : computed_expression(expression, select_columns_[i], qualifier));
    }
    return out;
}

SqlFragment PageSql::page(Pass pass, const PageBounds& bounds, std::size_t limit, std::uint64_t skip) const {
    if (pass == Pass::null_keys) return keyset(pass, bounds, limit);
    switch (strategy_) {
        case PagingStrategy::deferred_join: return deferred_join(pass, bounds, limit);
        case PagingStrategy::id_in: return keys_only(pass, bounds, limit);
        case PagingStrategy::offset: return offset(pass, bounds, limit, skip);
        case PagingStrategy::keyset: break;
    }
    return keyset(pass, bounds, limit);
}

SqlFragment PageSql::keyset(Pass pass, const PageBounds& bounds, std::size_t limit) const {
    SqlFragment where = conditions(pass, bounds);
    return limited("SELECT " + select_list("") + " FROM " + table_for(pass) + " WHERE " + where.sql + " ORDER BY " +
                       column_list(key(pass).bare) + " LIMIT ?",
                   where, limit);
}

SqlFragment PageSql::deferred_join(Pass pass, const PageBounds& bounds, std::size_t limit) const {
    const PassKey& k = key(pass);
    SqlFragment where = conditions(pass, bounds);
    std::string join;
    for (std::size_t i = 0; i < k.columns.size(); ++i) {
        const std::string name = mysql::quote_identifier(k.columns[i].name);
        join += (i ? " AND " : "") + k.qualified.columns[i] + " = rp_page." + name;
    }
    return limited("SELECT " + select_list("rp_t") + " FROM " + table_ + " AS rp_t JOIN (SELECT " +
                       column_list(k.bare) + " FROM " + table_for(pass) + " WHERE " + where.sql + " ORDER BY " +
                       column_list(k.bare) + " LIMIT ?) AS rp_page ON " + join + " ORDER BY " +
                       column_list(k.qualified),
                   where, limit);
}

SqlFragment PageSql::keys_only(Pass pass, const PageBounds& bounds, std::size_t limit) const {
    SqlFragment where = conditions(pass, bounds);
    std::string keys;
    for (const auto& column : key(pass).columns) keys += (keys.empty() ? "" : ", ") + select_expression(column, "");
    return limited("SELECT " + keys + " FROM " + table_for(pass) + " WHERE " + where.sql + " ORDER BY " +
                       column_list(key(pass).bare) + " LIMIT ?",
                   where, limit);
}

SqlFragment PageSql::rows_with_keys(Pass pass, const std::vector<KeyValue>& keys) const {
    const PassKey& k = key(pass);
    const bool composite = k.columns.size() > 1;
    SqlFragment where;
    if (reads_span_of_keys(pass) && !keys.empty()) {
        // Without a filter, phase 1's keys are every key between its first and last: the span, read in the
        // key's index, holds exactly the page's rows, plus any row inserted into it since phase 1, which is
        // read as a keyset page would read it (the page's checkpoint is its last key either way, so such a
        // row would otherwise be behind the copy for good). The list is not sent: the server's CPU for a
        // 5,000-key page of (emp_no, dept_no) was 13-14 ms given the IN alone (one range per key), 9-11 ms
        // with the span and the list kept as a filter, about 6 of them for parsing the list.
        where.and_also(null_key_condition_.empty() ? SqlFragment{} : SqlFragment{"NOT " + null_key_condition_, {}});
        where.and_also(key_after(k.bare, keys.front(), true));
        where.and_also(key_at_most(k.bare, keys.back()));
    } else {
        std::string tuple;
        for (const auto& placeholder : k.bare.placeholders) tuple += (tuple.empty() ? "" : ", ") + placeholder;
        if (composite) tuple = "(" + tuple + ")";
        where = {(composite ? "(" + column_list(k.bare) + ")" : column_list(k.bare)) + " IN (", {}};
        for (std::size_t i = 0; i < keys.size(); ++i) {
            where.sql += (i ? ", " : "") + tuple;
            where.params.insert(where.params.end(), keys[i].begin(), keys[i].end());
        }
        where.sql += ")";
        // Rows may have changed since phase 1: the filter still decides what is read.
        if (!where_.empty()) where.and_also({"(" + where_ + ")", {}});
    }
    SqlFragment out{"SELECT " + select_list("") + " FROM " + table_for(pass) + " WHERE " + where.sql + " ORDER BY " +
                        column_list(k.bare),
                    std::move(where.params)};
    return out;
}

std::vector<SqlFragment> PageSql::rows_with_keys_in_statements(Pass pass, const std::vector<KeyValue>& keys,
                                                                std::size_t max_list_bytes) const {
    // Never the span in parts: rows inserted between two parts would be skipped.
    if (reads_span_of_keys(pass) || keys.empty()) return {rows_with_keys(pass, keys)};
    const auto bytes_of = [](const KeyValue& key) {
        std::size_t bytes = 0;
        for (const KeyPart& part : key)
            bytes += std::holds_alternative<std::string>(part) ? std::get<std::string>(part).size() : 20;
        return bytes;
    };
    // Where each statement's keys end; one statement (the usual case) takes the keys without a copy.
    std::vector<std::size_t> ends;
    for (std::size_t first = 0; first < keys.size();) {
        std::size_t last = first + 1;
        std::size_t bytes = bytes_of(keys[first]);
        for (; last < keys.size() && bytes + bytes_of(keys[last]) <= max_list_bytes; ++last) bytes += bytes_of(keys[last]);
        ends.push_back(last);
        first = last;
    }
    if (ends.size() == 1) return {rows_with_keys(pass, keys)};
    std::vector<SqlFragment> statements;
    std::size_t first = 0;
    for (const std::size_t last : ends) {
        statements.push_back(rows_with_keys(pass, {keys.begin() + static_cast<std::ptrdiff_t>(first),
                                                   keys.begin() + static_cast<std::ptrdiff_t>(last)}));
        first = last;
    }
    return statements;
}

SqlFragment PageSql::offset(Pass pass, const PageBounds& bounds, std::size_t limit, std::uint64_t skip) const {
    SqlFragment page = keyset(pass, bounds, limit);
    page.sql += " OFFSET ?";
    page.params.push_back(static_cast<std::int64_t>(skip));
    return page;
}

}  // namespace rowpump
