#pragma once
// A JSON string (RFC 8259, section 7) appended to a caller's buffer: quotes, backslashes and control
// characters escaped, everything else copied byte for byte. The output is valid UTF-8 whenever the input
// is (which the server guarantees for text on a utf8mb4 connection).
#include <string>
#include <string_view>

namespace rowpump {

void append_json_string(std::string_view text, std::string& out);

// An object member's name escaped once, with what comes before it: `{"id":` for the first member, then
// `,"name":`. Encoders build these per column once and copy them into every row.
std::string json_member_prefix(std::string_view name, bool first);

}  // namespace rowpump
