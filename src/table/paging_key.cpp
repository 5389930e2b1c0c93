#include <algorithm>

#include "config/option_error.hpp"
#include "log.hpp"
#include "mysql/connection.hpp"
#include "rowpump/error.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string list(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + mysql::quote_identifier(name);
    return out;
}

// A unique index whose columns all appear in `columns` makes `columns` unique.
const Index* unique_index_within(const TableInfo& table, const std::vector<std::string>& columns) {
    for (const auto& index : table.indexes) {
        if (!index.unique) continue;
        if (std::all_of(index.columns.begin(), index.columns.end(), [&](auto& c) { return contains(columns, c); }))
            return &index;
    }
    return nullptr;
}

bool any_nullable(const TableInfo& table, const std::vector<std::string>& columns) {
    return std::any_of(columns.begin(), columns.end(), [&](auto& c) { return table.column(c).nullable; });
}

void check_orderable(const TableInfo& table, const std::vector<std::string>& columns) {
    for (const auto& name : columns) {
        const Column& column = table.column(name);
        if (column.kind == ColumnKind::floating)
            throw UsageError("column " + mysql::quote_identifier(name) + " of " + table.quoted_name() + " is " +
                             column.column_type + ": approximate values cannot page a table; choose an exact key");
        // ENUM and SET sort by their index but compare with text by their label: '>' would skip rows.
        if (column.column_type.rfind("enum(", 0) == 0 || column.column_type.rfind("set(", 0) == 0)
            throw UsageError("column " + mysql::quote_identifier(name) + " of " + table.quoted_name() + " is " +
                             column.column_type + ": ENUM and SET columns cannot be paging keys; choose another key");
        if (column.kind == ColumnKind::json || column.kind == ColumnKind::other)
            throw UsageError("column " + mysql::quote_identifier(name) + " of " + table.quoted_name() + " is " +
                             column.column_type + ": it cannot be a paging key; choose an indexed scalar column");
    }
}

PagingKey requested_key(const TableInfo& table, const std::vector<std::string>& requested) {
    for (const auto& name : requested) table.column(name);
    PagingKey key{requested, "", false, {}};
    if (const Index* index = unique_index_within(table, requested)) {
        key.reason = index->name == "PRIMARY" ? "the given key, unique by the primary key"
                                              : "the given key, unique by index " + mysql::quote_identifier(index->name);
    } else if (!table.primary_key.empty()) {
        for (const auto& column : table.primary_key)
            if (!contains(key.columns, column)) key.columns.push_back(column);
        key.reason = list(requested) + " plus the primary key as tie-breaker";
        log().info("key {} of {} is not unique: paging by ({}), the primary key breaks ties", list(requested),
                   table.quoted_name(), list(key.columns));
    } else {
        std::string unique;
        for (const auto& candidate : table.indexes)
            if (candidate.unique) unique += (unique.empty() ? "" : "; ") + list(candidate.columns);
        throw config::OptionError({"key " + list(requested) + " of " + table.quoted_name() +
                                       " is not unique and the table has no primary key to break ties: pass ",
                                   config::OptionId::key,
                                   " with a unique column" +
                                       (unique.empty() ? std::string(" (the table has no unique index)")
                                                       : " (unique indexes: " + unique + ")")});
    }
    return key;
}

// The index whose order is the key's: its columns are the key, or lead it and the primary key (which an
// InnoDB secondary index carries after its own columns, in its own order) supplies the rest. The longest
// such index wins.
std::string ordering_index(const TableInfo& table, const std::vector<std::string>& key) {
    const Index* best = nullptr;
    for (const auto& index : table.indexes) {
        if (index.columns.empty() || index.columns.size() > key.size()) continue;
        if (!std::equal(index.columns.begin(), index.columns.end(), key.begin())) continue;
        std::vector<std::string> carried;  // what the index orders by after its own columns
        if (index.name != "PRIMARY")
            for (const auto& column : table.primary_key)
                if (!contains(index.columns, column)) carried.push_back(column);
        const std::size_t rest = key.size() - index.columns.size();
        if (rest > carried.size() ||
            !std::equal(key.begin() + static_cast<std::ptrdiff_t>(index.columns.size()), key.end(), carried.begin()))
            continue;
        if (!best || index.columns.size() > best->columns.size()) best = &index;
    }
    return best ? best->name : std::string();
}

}  // namespace

PagingKey choose_paging_key(const TableInfo& table, const std::vector<std::string>& requested) {
    PagingKey key;
    if (!requested.empty()) {
        key = requested_key(table, requested);
    } else if (!table.primary_key.empty()) {
        key = {table.primary_key, "primary key", false, {}};
    } else {
        const Index* best = nullptr;
        for (const auto& index : table.indexes) {
            if (!index.unique || any_nullable(table, index.columns)) continue;
            if (!best || index.columns.size() < best->columns.size()) best = &index;
        }
        if (!best)
            throw config::OptionError({"table " + table.quoted_name() +
                                           " has no primary key and no unique index on NOT NULL columns: pass ",
                                       config::OptionId::key, " with a unique column"});
        key = {best->columns, "unique index " + mysql::quote_identifier(best->name), false, {}};
    }
    check_orderable(table, key.columns);
    key.nullable = any_nullable(table, key.columns);
    key.index = ordering_index(table, key.columns);
    return key;
}

}  // namespace rowpump
