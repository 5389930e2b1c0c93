// The JSON string writer scans 16 bytes at a time: every byte that needs an escape is found wherever it
// falls in a block, and no other byte (UTF-8 above 0x7F included) is touched.
#include <gtest/gtest.h>

#include <string>

#include "encode/json_string.hpp"

namespace rowpump {
namespace {

// One byte at a time, as RFC 8259 section 7 says.
std::string reference(const std::string& text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"') out += "\\\"";
        else if (c == '\\') out += "\\\\";
        else if (c == '\b') out += "\\b";
        else if (c == '\f') out += "\\f";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20) out += std::string("\\u00") + hex[c >> 4] + hex[c & 0xF];
        else out += static_cast<char>(c);
    }
    return out + "\"";
}

std::string written(const std::string& text) {
    std::string out = "prefix";
    append_json_string(text, out);
    return out.substr(6);
}

TEST(JsonStringTest, EveryByteValueAtEveryPlaceOfABlock) {
    for (int byte = 0; byte < 256; ++byte) {
        for (std::size_t at = 0; at < 40; ++at) {
            std::string text(40, 'a');
            text[at] = static_cast<char>(byte);
            ASSERT_EQ(written(text), reference(text)) << "byte " << byte << " at " << at;
        }
    }
}

// A text of 16 bytes or more ends with a block that overlaps the one before: an escape is found in the
// overlap, after it and before it, once, whatever the length, and a second escape after the first too.
TEST(JsonStringTest, EveryLengthWithEscapesAtEveryPlace) {
    const std::string bytes = std::string("\"\\\n\x01\x1F\x20\x7F\xC3", 8);
    for (std::size_t length = 1; length <= 48; ++length) {
        for (std::size_t at = 0; at < length; ++at) {
            for (char byte : bytes) {
                std::string text(length, 'a');
                text[at] = byte;
                ASSERT_EQ(written(text), reference(text))
                    << "length " << length << ", byte " << int(byte) << " at " << at;
                for (std::size_t second = at + 1; second < length; ++second) {
                    std::string twice = text;
                    twice[second] = '"';
                    ASSERT_EQ(written(twice), reference(twice))
                        << "length " << length << ", at " << at << " and " << second;
                }
            }
        }
    }
}

TEST(JsonStringTest, EmptyRunsOfEscapesAndUtf8) {
    EXPECT_EQ(written(""), "\"\"");
    EXPECT_EQ(written(std::string("\0\0", 2)), "\"\\u0000\\u0000\"");
    EXPECT_EQ(written("\"\"\\\\"), "\"\\\"\\\"\\\\\\\\\"");
    const std::string utf8 = "\xC3\xA9\xF0\x9F\x98\x80\xE2\x80\xA8 caf\xC3\xA9 \x7F";
    EXPECT_EQ(written(utf8), "\"" + utf8 + "\"");
    std::string long_text;
    for (int i = 0; i < 1000; ++i) long_text += static_cast<char>(i % 128);
    EXPECT_EQ(written(long_text), reference(long_text));
}

}  // namespace
}  // namespace rowpump
