#pragma once
// A column as introspection would describe it, and a page of one row, for tests that build plans and
// encoders by hand.
#include <optional>
#include <string>
#include <vector>

#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace rowpump::test {

inline Column column(const std::string& name, ColumnKind kind, bool nullable = false) {
    return Column{name, "", kind, nullable, 0, 0};
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
