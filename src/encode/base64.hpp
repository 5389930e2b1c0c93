#pragma once
// Base64 (RFC 4648, standard alphabet, padded) appended to a caller's buffer, so encoders reuse theirs.
#include <string>
#include <string_view>

namespace rowpump {

void base64_append(std::string_view bytes, std::string& out);
std::string base64_encode(std::string_view bytes);

}  // namespace rowpump
