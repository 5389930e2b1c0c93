#include "env_secret.hpp"
#include "rowpump/cursor.hpp"

namespace rowpump {

namespace {

void check_length(const std::string& key, const char* variable) {
    // HMAC's strength is the key's: 16 bytes is the least a guess cannot reach.
    if (!key.empty() && key.size() < 16)
        throw UsageError(std::string(variable) + ": a cursor key needs at least 16 bytes (e.g. openssl rand -hex 32)");
}

}  // namespace

std::optional<CursorKeys> CursorKeys::from_environment() {
    CursorKeys keys;
    keys.current = secret_from_env("ROWPUMP_CURSOR_KEY", "ROWPUMP_CURSOR_KEY_FILE", "cursor key", EmptySecretFile::refused);
    if (keys.current.empty()) return std::nullopt;
    keys.previous = secret_from_env("ROWPUMP_CURSOR_KEY_PREVIOUS", "ROWPUMP_CURSOR_KEY_PREVIOUS_FILE", "cursor key",
                                    EmptySecretFile::refused);
    check_length(keys.current, "ROWPUMP_CURSOR_KEY");
    check_length(keys.previous, "ROWPUMP_CURSOR_KEY_PREVIOUS");
    return keys;
}

}  // namespace rowpump
