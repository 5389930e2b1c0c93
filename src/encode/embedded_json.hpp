#pragma once
// A JSON column's value written as the JSON value it holds, not as a string (JsonColumns::embed).
#include <string>
#include <string_view>

namespace rowpump {

// Appends `text`, a JSON document, to `out` compacted onto one line (a payload is one NDJSON line) with
// its numbers exactly as written. Throws Error naming `column` when `text` is not one valid JSON value in
// UTF-8: a column of another server (MariaDB's JSON is LONGTEXT, checked only by its CHECK constraint)
// may hold anything.
void append_embedded_json(std::string_view column, std::string_view text, std::string& out);

}  // namespace rowpump
