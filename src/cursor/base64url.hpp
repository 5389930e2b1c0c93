#pragma once
// URL-safe base64 without padding (RFC 4648, section 5): a token goes into a query string as it is.
#include <optional>
#include <string>
#include <string_view>

namespace rowpump {

std::string base64url_encode(std::string_view bytes);
// nullopt for a character outside the alphabet, or a length no encoding gives (4n + 1).
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace rowpump
