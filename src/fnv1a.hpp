#pragma once
// FNV-1a as lowercase hex: a hash that is the same on every build and machine, unlike std::hash, for
// fingerprints that are stored or logged. Not for anything an adversary chooses to collide.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rowpump {

namespace fnv1a_detail {
template <class Hash>
std::string hex(std::string_view text, Hash hash, Hash prime) {
    for (unsigned char c : text) {
        hash ^= c;
        hash *= prime;
    }
    char out[17];
    const int digits = static_cast<int>(2 * sizeof(Hash));
    std::snprintf(out, sizeof out, "%0*llx", digits, static_cast<unsigned long long>(hash));
    return out;
}
}  // namespace fnv1a_detail

// 32 bits as 8 hex digits.
inline std::string fnv1a_32_hex(std::string_view text) {
    return fnv1a_detail::hex<std::uint32_t>(text, 2166136261u, 16777619u);
}

// 64 bits as 16 hex digits.
inline std::string fnv1a_64_hex(std::string_view text) {
    return fnv1a_detail::hex<std::uint64_t>(text, 14695981039346656037ull, 1099511628211ull);
}

}  // namespace rowpump
