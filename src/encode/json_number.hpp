#pragma once
// The server's text of a number, checked against JSON's number grammar (RFC 8259, section 6).
#include <optional>
#include <string>
#include <string_view>

namespace rowpump {

// The JSON spelling of `text`: `text` itself when it already is one (the usual case: the server writes
// integers and DECIMAL that way), else a spelling built in `scratch` for decimal text JSON rejects
// ("+5" -> "5", ZEROFILL "00042" -> "42", YEAR "0000" -> "0", ".5" -> "0.5", "5." -> "5"). nullopt when
// `text` is no finite decimal number at all ("inf", "nan", "", "1e"): JSON cannot carry it.
std::optional<std::string_view> json_number(std::string_view text, std::string& scratch);

// Whether a JSON number (json_number's spelling) is an integer a double holds exactly and alone: within
// +-(2^53 - 1), JavaScript's Number.MAX_SAFE_INTEGER. Fractions and exponents are not integers here.
bool is_safe_integer(std::string_view number);

}  // namespace rowpump
