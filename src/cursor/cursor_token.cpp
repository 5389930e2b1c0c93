#include "cursor/cursor_token.hpp"

#include "crypto/hmac.hpp"
#include "cursor/base64url.hpp"
#include "cursor/token_values.hpp"

namespace rowpump {

namespace {

constexpr std::size_t header_size = 7;  // version, key id, edge, 4 bytes of fingerprint

std::uint8_t key_id(const std::string& key) { return crypto::sha256(key)[0]; }

}  // namespace

TokenSigner::TokenSigner(CursorKeys keys, std::string fingerprint, std::vector<Column> columns)
    : keys_(std::move(keys)), fingerprint_(std::move(fingerprint)), columns_(std::move(columns)) {
    if (keys_.current.empty()) throw UsageError("a cursor needs a signing key (ROWPUMP_CURSOR_KEY or ROWPUMP_CURSOR_KEY_FILE)");
}

std::string TokenSigner::mac(const std::string& key, std::string_view signed_bytes) const {
    // Signed over the whole fingerprint, not only the 4 bytes the token carries.
    const crypto::Digest digest = crypto::hmac_sha256(key, fingerprint_ + std::string(signed_bytes));
    return std::string(reinterpret_cast<const char*>(digest.data()), mac_size);
}

std::string TokenSigner::encode(const TokenContent& content) const {
    std::string bytes;
    bytes += static_cast<char>(version);
    bytes += static_cast<char>(key_id(keys_.current));
    bytes += static_cast<char>(content.edge);
    bytes.append(fingerprint_, 0, 4);
    put_varint(bytes, content.page_number);
    put_values(bytes, columns_, content.values);
    bytes += mac(keys_.current, bytes);
    return base64url_encode(bytes);
}

TokenContent TokenSigner::decode(std::string_view token) const {
    const auto bytes = base64url_decode(token);
    if (!bytes) throw InvalidCursor("the cursor is not a rowpump token (not URL-safe base64)");
    if (bytes->size() < header_size + mac_size) throw InvalidCursor("the cursor is not a rowpump token (too short)");
    if (static_cast<std::uint8_t>((*bytes)[0]) != version)
        throw InvalidCursor("the cursor is of token version " + std::to_string(static_cast<unsigned char>((*bytes)[0])) +
                            "; this build reads version " + std::to_string(version) + " (ask for the first page again)");
    const auto id = static_cast<std::uint8_t>((*bytes)[1]);
    const std::string_view body = std::string_view(*bytes).substr(0, bytes->size() - mac_size);
    const auto* given = reinterpret_cast<const std::uint8_t*>(bytes->data() + body.size());
    bool known_key = false;
    bool verified = false;
    for (const std::string* key : {&keys_.current, &keys_.previous}) {
        if (key->empty() || key_id(*key) != id) continue;
        known_key = true;
        const std::string expected = mac(*key, body);
        if (crypto::equal_in_constant_time(reinterpret_cast<const std::uint8_t*>(expected.data()), given, mac_size))
            verified = true;
    }
    if (!known_key)
        throw InvalidCursor("the cursor was signed under a key this server does not have (rotated out?); ask for the first page again");
    if (!verified) {
        // The MAC covers the whole fingerprint: a token of another query fails it too, and its 4 bytes say so.
        if (body.substr(3, 4) != std::string_view(fingerprint_).substr(0, 4))
            throw InvalidCursor("the cursor belongs to another query (its table, sort, filter or columns differ)");
        throw InvalidCursor("the cursor was altered (its signature does not match)");
    }
    TokenContent content;
    const auto edge = static_cast<std::uint8_t>((*bytes)[2]);
    if (edge > 1) throw InvalidCursor("the cursor is malformed (edge)");
    content.edge = static_cast<TokenContent::Edge>(edge);
    std::size_t at = header_size;
    const auto page = get_varint(body, at);
    auto values = page ? get_values(body, at, columns_) : std::nullopt;
    if (!values) throw InvalidCursor("the cursor is malformed (its values do not fit the sort)");
    content.page_number = *page;
    content.values = std::move(*values);
    return content;
}

}  // namespace rowpump
