#pragma once
// MySQL and MariaDB names hold characters up to U+FFFF only, and information_schema compares names in
// utf8mb3: a name with a 4-byte UTF-8 character (an emoji, say) cannot name anything, and looking one up
// fails with "Illegal mix of collations". Callers say so before they ask the server.
#include <algorithm>
#include <string_view>

namespace rowpump::mysql {

// True when `name` holds a character beyond U+FFFF (UTF-8 lead byte 0xF0 or above).
inline bool has_character_beyond_u_ffff(std::string_view name) {
    return std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xF0; });
}

}  // namespace rowpump::mysql
