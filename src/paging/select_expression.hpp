#pragma once
// How a column is selected so that its text is exactly the value we bind back later: keys read from the
// server must compare equal to the rows they came from.
#include <string>

#include "rowpump/table.hpp"

namespace rowpump {

// The column, optionally qualified (`q`.`c`), or a conversion done by the server where the binary
// protocol's text is not what we encode: exact fractional seconds for temporal types, the shortest
// round-trip text for floats, BIT as its number.
std::string select_expression(const Column& column, const std::string& qualifier = "");

}  // namespace rowpump
