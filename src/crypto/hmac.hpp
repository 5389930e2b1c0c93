#pragma once
// SHA-256 and HMAC-SHA256 for signing cursor tokens, and a comparison that takes the same time wherever
// two MACs differ. OpenSSL lives behind this wall (and src/redis's TLS): no other folder includes it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rowpump::crypto {

using Digest = std::array<std::uint8_t, 32>;

Digest sha256(std::string_view data);
Digest hmac_sha256(std::string_view key, std::string_view data);
// True when the first `size` bytes of `a` and `b` are equal, in time that does not depend on where they
// differ (CRYPTO_memcmp): a MAC compared with memcmp leaks how many leading bytes a forger got right.
bool equal_in_constant_time(const std::uint8_t* a, const std::uint8_t* b, std::size_t size);

}  // namespace rowpump::crypto
