#pragma once
// FNV-1a as lowercase hex: a hash that is the same on every build and machine, unlike std::hash, for
// fingerprints that are stored or logged. Not for anything an adversary chooses to collide.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rowpump {

// 32 bits as 8 hex digits.
inline std::string fnv1a_32_hex(std::string_view text) {
    std::uint32_t hash = 2166136261u;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 16777619u;
    }
    char out[9];
    std::snprintf(out, sizeof out, "%08x", static_cast<unsigned>(hash));
    return out;
}

// 64 bits as 16 hex digits.
inline std::string fnv1a_64_hex(std::string_view text) {
    std::uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
    return out;
}

}  // namespace rowpump
