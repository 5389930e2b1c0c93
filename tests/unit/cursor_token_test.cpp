// Cursor tokens: round trips, the length of a bigint and of a composite token, and every way a token is
// refused (altered, another query, an unknown key, not a token), with rotation to a new key.
#include "cursor/cursor_token.hpp"

#include <gtest/gtest.h>

#include "cursor/base64url.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;
using Edge = TokenContent::Edge;

const std::string key_a = "0123456789abcdef0123456789abcdef";
const std::string key_b = "fedcba9876543210fedcba9876543210";
const std::string fingerprint_one(32, '\x11');
const std::string fingerprint_two(32, '\x22');

std::vector<Column> bigint_sort() { return {column("id", ColumnKind::signed_integer)}; }
std::vector<Column> composite_sort() {
    return {column("created_at", ColumnKind::datetime), column("id", ColumnKind::unsigned_integer)};
}

TokenSigner signer(const std::string& current, const std::string& previous = "",
                   const std::string& fingerprint = fingerprint_one, std::vector<Column> columns = bigint_sort()) {
    return TokenSigner(CursorKeys{current, previous}, fingerprint, std::move(columns));
}

std::string refusal(const TokenSigner& s, const std::string& token) {
    try {
        s.decode(token);
    } catch (const InvalidCursor& e) {
        return e.what();
    }
    return "accepted";
}

TEST(Base64Url, RoundTripsEveryLengthWithoutPadding) {
    std::string bytes;
    for (int i = 0; i < 40; ++i) {
        const std::string text = base64url_encode(bytes);
        EXPECT_EQ(text.find_first_of("+/="), std::string::npos);
        EXPECT_EQ(base64url_decode(text), bytes);
        bytes += static_cast<char>(i * 37 + 250);
    }
    EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
    EXPECT_FALSE(base64url_decode("ab+c"));
    EXPECT_FALSE(base64url_decode("abcde"));  // 4n + 1 characters: no encoding is that long
    EXPECT_FALSE(base64url_decode("-_9"));    // padding bits set: another text of the same bytes
}

TEST(CursorToken, RoundTripsValuesEdgeAndPage) {
    const auto s = signer(key_a);
    for (const std::int64_t id : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1'000'000}, INT64_MIN, INT64_MAX}) {
        const TokenContent content{Edge::start, 17, {id}};
        EXPECT_EQ(s.decode(s.encode(content)), content);
    }
    const auto c = signer(key_a, "", fingerprint_one, composite_sort());
    for (const std::string at : {"2024-02-29 23:59:59", "2024-01-01 00:00:00.123456", "0000-00-00 00:00:00",
                                 "1970-01-01 00:00:00.5", "9999-12-31 23:59:59"}) {
        const TokenContent content{Edge::end, 500'000, {at, std::uint64_t{UINT64_MAX}}};
        EXPECT_EQ(c.decode(c.encode(content)), content) << at;
    }
}

TEST(CursorToken, LengthsForABigintAndACompositeKey) {
    // The lengths docs/cursor_pagination.md states: a bigint key of 20M rows on page 500,000, and
    // (created_at DATETIME, id BIGINT UNSIGNED) there.
    const auto s = signer(key_a);
    EXPECT_EQ(s.encode({Edge::end, 500'000, {std::int64_t{10'000'000}}}).size(), 40u);
    const auto c = signer(key_a, "", fingerprint_one, composite_sort());
    EXPECT_EQ(c.encode({Edge::end, 500'000, {std::string("2024-06-30 12:34:56"), std::uint64_t{10'000'000}}}).size(), 48u);
}

TEST(CursorToken, EveryAlteredByteIsRefused) {
    const auto s = signer(key_a);
    const std::string token = s.encode({Edge::end, 3, {std::int64_t{123456}}});
    const std::string bytes = *base64url_decode(token);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        for (const int flip : {0x01, 0x80}) {
            std::string altered = bytes;
            altered[i] = static_cast<char>(altered[i] ^ flip);
            EXPECT_NE(refusal(s, base64url_encode(altered)), "accepted") << "byte " << i;
        }
    }
    std::string altered = bytes;
    altered[8] = static_cast<char>(altered[8] ^ 1);  // a value byte
    EXPECT_EQ(refusal(s, base64url_encode(altered)), "the cursor was altered (its signature does not match)");
}

TEST(CursorToken, ATokenForAnotherQueryIsRefusedAsSuch) {
    const std::string token = signer(key_a, "", fingerprint_two).encode({Edge::end, 1, {std::int64_t{5}}});
    EXPECT_EQ(refusal(signer(key_a), token), "the cursor belongs to another query (its table, sort, filter or columns differ)");
}

TEST(CursorToken, RotationAcceptsThePreviousKeyAndRefusesAnUnknownOne) {
    const std::string old_token = signer(key_a).encode({Edge::end, 1, {std::int64_t{5}}});
    const auto rotated = signer(key_b, key_a);
    EXPECT_EQ(rotated.decode(old_token).values, KeyValue{std::int64_t{5}});
    // New tokens are signed under the new key, which the server that has only the old one does not know.
    const std::string new_token = rotated.encode({Edge::end, 1, {std::int64_t{5}}});
    EXPECT_EQ(rotated.decode(new_token).values, KeyValue{std::int64_t{5}});
    EXPECT_NE(refusal(signer(key_a), new_token).find("signed under a key this server does not have"), std::string::npos);
    // Once the old key is dropped, its tokens are refused.
    EXPECT_NE(refusal(signer(key_b), old_token).find("signed under a key this server does not have"), std::string::npos);
}

TEST(CursorToken, WhatIsNotATokenIsRefused) {
    const auto s = signer(key_a);
    EXPECT_EQ(refusal(s, "not a token!"), "the cursor is not a rowpump token (not URL-safe base64)");
    EXPECT_EQ(refusal(s, ""), "the cursor is not a rowpump token (too short)");
    EXPECT_EQ(refusal(s, "abcd"), "the cursor is not a rowpump token (too short)");
    std::string bytes = *base64url_decode(s.encode({Edge::end, 1, {std::int64_t{5}}}));
    bytes[0] = 9;
    EXPECT_NE(refusal(s, base64url_encode(bytes)).find("token version 9"), std::string::npos);
}

TEST(CursorToken, NoKeyNoSigner) { EXPECT_THROW(signer(""), UsageError); }

}  // namespace
}  // namespace rowpump
