#include <cstdlib>
#include <fstream>
#include <sstream>

#include "rowpump/cursor.hpp"

namespace rowpump {

namespace {

// A key's bytes: the variable itself, or the file it names (one trailing newline dropped, as editors add it).
std::string key_from(const char* variable, const char* file_variable) {
    if (const char* value = std::getenv(variable); value && *value) return value;
    const char* path = std::getenv(file_variable);
    if (!path || !*path) return "";
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError(std::string(file_variable) + "=" + path + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    std::string key = text.str();
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
    if (key.empty()) throw UsageError(std::string(file_variable) + "=" + path + ": the file is empty");
    return key;
}

void check_length(const std::string& key, const char* variable) {
    // HMAC's strength is the key's: 16 bytes is the least a guess cannot reach.
    if (!key.empty() && key.size() < 16)
        throw UsageError(std::string(variable) + ": a cursor key needs at least 16 bytes (e.g. openssl rand -hex 32)");
}

}  // namespace

std::optional<CursorKeys> CursorKeys::from_environment() {
    CursorKeys keys;
    keys.current = key_from("ROWPUMP_CURSOR_KEY", "ROWPUMP_CURSOR_KEY_FILE");
    if (keys.current.empty()) return std::nullopt;
    keys.previous = key_from("ROWPUMP_CURSOR_KEY_PREVIOUS", "ROWPUMP_CURSOR_KEY_PREVIOUS_FILE");
    check_length(keys.current, "ROWPUMP_CURSOR_KEY");
    check_length(keys.previous, "ROWPUMP_CURSOR_KEY_PREVIOUS");
    return keys;
}

}  // namespace rowpump
