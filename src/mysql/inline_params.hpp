#pragma once
// The text protocol has no bound parameters: the streaming reader writes each value into its statement as
// a literal. Integers become digits; strings go through the driver's own escaping for the connection
// (quote_string), never through hand-made quoting. Only a `?` outside string literals, quoted identifiers
// and comments is a placeholder, so a '?' inside a user's --where string stays text.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/key.hpp"

namespace rowpump::mysql {

using QuoteString = std::function<std::string(std::string_view)>;

// Throws Error (a bug, not bad input) when the placeholders and the values do not pair up.
std::string inline_params(std::string_view sql, const std::vector<KeyPart>& params, const QuoteString& quote_string);

}  // namespace rowpump::mysql
