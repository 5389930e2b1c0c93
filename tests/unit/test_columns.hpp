#pragma once
// A column as introspection would describe it, for tests that build plans and encoders by hand.
#include <string>

#include "rowpump/table.hpp"

namespace rowpump::test {

inline Column column(const std::string& name, ColumnKind kind, bool nullable = false) {
    return Column{name, "", kind, nullable, 0, 0};
}

}  // namespace rowpump::test
