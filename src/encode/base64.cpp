#include "encode/base64.hpp"

#include "rowpump/encode.hpp"

namespace rowpump {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

unsigned byte_at(std::string_view bytes, std::size_t i) { return static_cast<unsigned char>(bytes[i]); }

}  // namespace

void base64_append(std::string_view bytes, std::string& out) {
    const std::size_t start = out.size();
    out.resize(start + (bytes.size() + 2) / 3 * 4);
    char* p = out.data() + start;
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const unsigned group = byte_at(bytes, i) << 16 | byte_at(bytes, i + 1) << 8 | byte_at(bytes, i + 2);
        *p++ = alphabet[group >> 18];
        *p++ = alphabet[(group >> 12) & 63];
        *p++ = alphabet[(group >> 6) & 63];
        *p++ = alphabet[group & 63];
    }
    const std::size_t left = bytes.size() - i;
    if (left == 0) return;
    const unsigned group = byte_at(bytes, i) << 16 | (left == 2 ? byte_at(bytes, i + 1) << 8 : 0u);
    *p++ = alphabet[group >> 18];
    *p++ = alphabet[(group >> 12) & 63];
    *p++ = left == 2 ? alphabet[(group >> 6) & 63] : '=';
    *p = '=';
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    base64_append(bytes, out);
    return out;
}

}  // namespace rowpump
