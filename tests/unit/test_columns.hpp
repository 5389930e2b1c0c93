#pragma once
// A column as introspection would describe it, a table of schema `db` as describe_table would, and a page
// of one row, for tests that build plans, paging keys and encoders by hand.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace rowpump::test {

inline Column column(const std::string& name, ColumnKind kind, bool nullable = false) {
    return Column{name, "", kind, nullable, 0, 0};
}

// Table `db`.`name`; the primary key's index, when there is one, belongs in `indexes` as "PRIMARY".
inline TableInfo table_info(std::string name, std::vector<Column> columns, std::vector<std::string> primary_key,
                            std::vector<Index> indexes) {
    TableInfo table;
    table.schema = "db";
    table.name = std::move(name);
    table.columns = std::move(columns);
    table.primary_key = std::move(primary_key);
    table.indexes = std::move(indexes);
    return table;
}

// One row holding `values` (nullopt for NULL).
inline Page one_row(const std::vector<std::optional<std::string>>& values) {
    Page page(values.size());
    for (const auto& value : values) {
        if (value) page.append(*value);
        else page.append_null();
    }
    return page;
}

}  // namespace rowpump::test
