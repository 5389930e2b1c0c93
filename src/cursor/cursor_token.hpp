#pragma once
// The cursor token: what a client holds between requests. Version 1, before base64url:
//   version (1) | key id (1) | edge (1) | fingerprint (4) | page number (varint) | sort values | MAC (16)
// The key id is the first byte of SHA-256(key), so a token under a key this server no longer has is told
// from an altered one. The fingerprint's 4 bytes tell a token for another query from an altered one; the
// MAC, HMAC-SHA256 truncated to 128 bits, covers all 32 bytes of the fingerprint and everything before
// it. Sort values go by the column's kind: integers as varints (zigzag when signed), DATETIME packed as
// seconds and fraction when its text comes back exactly, anything else as length and bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/cursor.hpp"
#include "rowpump/key.hpp"

namespace rowpump {

struct TokenContent {
    enum class Edge : std::uint8_t { start = 0, end = 1 };  // the row starts or ends its page
    Edge edge = Edge::end;
    std::uint64_t page_number = 0;  // of the page the row is on; 0 unknown
    KeyValue values;                // the row's sort values

    bool operator==(const TokenContent&) const = default;
};

class TokenSigner {
public:
    // `fingerprint`: query_fingerprint(); `columns`: the sort's, whose kinds say how values are packed.
    TokenSigner(CursorKeys keys, std::string fingerprint, std::vector<Column> columns);

    std::string encode(const TokenContent& content) const;
    // Throws InvalidCursor, saying which: not a token, another version, an unknown key, altered, or
    // for another query.
    TokenContent decode(std::string_view token) const;

    static constexpr std::uint8_t version = 1;
    static constexpr std::size_t mac_size = 16;

private:
    std::string mac(const std::string& key, std::string_view signed_bytes) const;

    CursorKeys keys_;
    std::string fingerprint_;
    std::vector<Column> columns_;
};

}  // namespace rowpump
