#include "encode/json_string.hpp"

#include <cstddef>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rowpump {

namespace {

bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

#if defined(__SSE2__)
// Bit i set when byte i of the 16 at `at` needs an escape.
unsigned special_bytes(const char* at) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // An unsigned byte b <= 0x1F exactly when max(b, 0x1F) == 0x1F.
    const __m128i below_space = _mm_set1_epi8(0x1F);
    const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, below_space), below_space);
    const __m128i special = _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')),
                                                                _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))));
    return static_cast<unsigned>(_mm_movemask_epi8(special));
}
#endif

// The length of the run at the start of `text` that needs no escape. Text columns are mostly such runs,
// so they are scanned 16 bytes at a time where SSE2 is there (every x86-64 CPU), the last few bytes of a
// text of 16 or more as one more block that overlaps the one before: byte by byte, the tails of a
// sysbench row's two strings took as long as the rest of them.
std::size_t clean_prefix(const char* text, std::size_t size) {
    std::size_t at = 0;
#if defined(__SSE2__)
    for (; at + 16 <= size; at += 16) {
        const unsigned mask = special_bytes(text + at);
        if (mask != 0) return at + static_cast<std::size_t>(__builtin_ctz(mask));
    }
    if (at < size && size >= 16) {
        // The bytes it shares with the blocks before needed no escape, or the loop would have returned.
        const std::size_t start = size - 16;
        const unsigned mask = special_bytes(text + start);
        return mask != 0 ? start + static_cast<std::size_t>(__builtin_ctz(mask)) : size;
    }
#endif
    while (at < size && !needs_escape(static_cast<unsigned char>(text[at]))) ++at;
    return at;
}

void append_escape(unsigned char c, std::string& out) {
    static constexpr char hex[] = "0123456789ABCDEF";
    switch (c) {
        case '"': out.append("\\\"", 2); return;
        case '\\': out.append("\\\\", 2); return;
        case '\b': out.append("\\b", 2); return;
        case '\f': out.append("\\f", 2); return;
        case '\n': out.append("\\n", 2); return;
        case '\r': out.append("\\r", 2); return;
        case '\t': out.append("\\t", 2); return;
        default: {
            const char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
            out.append(escaped, sizeof escaped);
        }
    }
}

}  // namespace

void append_json_string(std::string_view text, std::string& out) {
    out.push_back('"');
    const char* data = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const std::size_t clean = clean_prefix(data, left);
        out.append(data, clean);
        if (clean == left) break;
        append_escape(static_cast<unsigned char>(data[clean]), out);
        data += clean + 1;
        left -= clean + 1;
    }
    out.push_back('"');
}

std::string json_member_prefix(std::string_view name, bool first) {
    std::string prefix(first ? "{" : ",");
    append_json_string(name, prefix);
    prefix.push_back(':');
    return prefix;
}

}  // namespace rowpump
