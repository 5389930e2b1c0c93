#pragma once
// Key values as stored in a job's state: a JSON array of each part's text ("[\"42\",\"abc\"]"). Parts
// are read back through the key's column types, so integers stay integers and bytes stay bytes.
#include <optional>
#include <string>
#include <vector>

#include "rowpump/key.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

std::string encode_key(const KeyValue& key);
std::string encode_key(const std::optional<KeyValue>& key);  // "" for an open bound

// Throws Error when the text is not a key of these columns (a state written by another definition).
KeyValue decode_key(const std::string& text, const std::vector<Column>& key_columns);
std::optional<KeyValue> decode_optional_key(const std::string& text, const std::vector<Column>& key_columns);

}  // namespace rowpump
