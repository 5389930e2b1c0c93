#pragma once
// Error text from outside (a task's stderr, an exception) made safe to store in a utf8mb4 TEXT column:
// strict SQL modes refuse invalid UTF-8, and a refused fail() would leave the task claimed.
#include <cstddef>
#include <string>
#include <string_view>

namespace rowpump::queue {

// `text` with every byte that is not part of a valid UTF-8 sequence replaced by '?', cut at a character
// boundary to at most `max_bytes`.
std::string storable_error(std::string_view text, std::size_t max_bytes = 16384);

}  // namespace rowpump::queue
