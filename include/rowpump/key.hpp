#pragma once
// Paging keys and key ranges. A key value holds one part per key column; parts are sent to the server as
// bound parameters and only ever compared by the server, under the column's own collation and type.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "rowpump/export.hpp"

namespace ROWPUMP_EXPORT rowpump {

// Integers travel as integers (signed or unsigned); everything else as the text the server gave us
// (strings and bytes verbatim, DECIMAL exact, dates as 'YYYY-MM-DD hh:mm:ss.ffffff').
using KeyPart = std::variant<std::int64_t, std::uint64_t, std::string>;
using KeyValue = std::vector<KeyPart>;

// The half-open range [lo, hi) of key values; an absent bound is open (first / last range).
struct KeyRange {
    std::optional<KeyValue> lo;  // inclusive
    std::optional<KeyValue> hi;  // exclusive
};

// A readable rendering for logs and summaries: (12, 'abc').
std::string to_string(const KeyValue& value);

}  // namespace rowpump
