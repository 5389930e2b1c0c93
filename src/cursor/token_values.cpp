#include "cursor/token_values.hpp"

#include <cstdio>
#include <variant>

#include "civil_calendar.hpp"

namespace rowpump {

namespace {

// Days are counted from 0000-03-01 so that every year the server stores (0 to 9999) packs unsigned.
constexpr std::int64_t day_offset = 719468;

std::string datetime_text(std::uint64_t seconds, unsigned fraction_digits, std::uint64_t fraction) {
    const CivilDate date = civil_from_days(static_cast<std::int64_t>(seconds / 86400) - day_offset);
    const std::int64_t y = date.year;
    const unsigned m = date.month, d = date.day;
    const std::uint64_t s = seconds % 86400;
    char text[48];
    int n = std::snprintf(text, sizeof text, "%04lld-%02u-%02u %02u:%02u:%02u", static_cast<long long>(y), m, d,
                          static_cast<unsigned>(s / 3600), static_cast<unsigned>(s / 60 % 60), static_cast<unsigned>(s % 60));
    if (fraction_digits > 0)
        n += std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ".%0*llu", static_cast<int>(fraction_digits),
                           static_cast<unsigned long long>(fraction));
    return std::string(text, static_cast<std::size_t>(n));
}

// 'YYYY-MM-DD hh:mm:ss[.f..]' as (seconds << 4 | digits << 1 | 1, then the fraction); nullopt when the text
// would not come back exactly (a zero date, another form).
bool put_packed_datetime(std::string& out, const std::string& text) {
    unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    int used = 0;
    if (text.size() < 19 || std::sscanf(text.c_str(), "%4u-%2u-%2u %2u:%2u:%2u%n", &y, &mo, &d, &h, &mi, &s, &used) != 6 ||
        used != 19 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59)
        return false;
    unsigned digits = 0;
    std::uint64_t fraction = 0;
    if (text.size() > 19) {
        if (text[19] != '.' || text.size() > 26 || text.size() == 20) return false;
        for (std::size_t i = 20; i < text.size(); ++i) {
            if (text[i] < '0' || text[i] > '9') return false;
            fraction = fraction * 10 + static_cast<unsigned>(text[i] - '0');
        }
        digits = static_cast<unsigned>(text.size() - 20);
    }
    const auto seconds = static_cast<std::uint64_t>((days_from_civil(y, mo, d) + day_offset) * 86400 + h * 3600 + mi * 60 + s);
    if (datetime_text(seconds, digits, fraction) != text) return false;
    put_varint(out, seconds << 4 | digits << 1 | 1);
    if (digits) put_varint(out, fraction);
    return true;
}

}  // namespace

void put_varint(std::string& out, std::uint64_t value) {
    while (value >= 0x80) {
        out += static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    out += static_cast<char>(value);
}

std::optional<std::uint64_t> get_varint(std::string_view in, std::size_t& at) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64 && at < in.size(); shift += 7) {
        const auto byte = static_cast<unsigned char>(in[at++]);
        value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return value;
    }
    return std::nullopt;
}

void put_values(std::string& out, const std::vector<Column>& columns, const KeyValue& values) {
    for (std::size_t i = 0; i < columns.size() && i < values.size(); ++i) {
        const KeyPart& part = values[i];
        if (const auto* v = std::get_if<std::int64_t>(&part))
            put_varint(out, (static_cast<std::uint64_t>(*v) << 1) ^ static_cast<std::uint64_t>(*v >> 63));  // zigzag
        else if (const auto* u = std::get_if<std::uint64_t>(&part))
            put_varint(out, *u);
        else {
            const auto& text = std::get<std::string>(part);
            if (columns[i].kind == ColumnKind::datetime && put_packed_datetime(out, text)) continue;
            // Text: its length, shifted for a datetime so that the low bit says "not packed".
            put_varint(out, columns[i].kind == ColumnKind::datetime ? text.size() << 1 : text.size());
            out += text;
        }
    }
}

std::optional<KeyValue> get_values(std::string_view in, std::size_t at, const std::vector<Column>& columns) {
    KeyValue values;
    for (const auto& column : columns) {
        const auto head = get_varint(in, at);
        if (!head) return std::nullopt;
        if (column.kind == ColumnKind::signed_integer) {
            values.emplace_back(static_cast<std::int64_t>((*head >> 1) ^ (~(*head & 1) + 1)));
        } else if (column.kind == ColumnKind::unsigned_integer || column.kind == ColumnKind::bit) {
            values.emplace_back(*head);
        } else if (column.kind == ColumnKind::datetime && (*head & 1)) {
            const unsigned digits = (*head >> 1) & 7;
            std::uint64_t fraction = 0;
            if (digits) {
                const auto f = get_varint(in, at);
                if (!f) return std::nullopt;
                fraction = *f;
            }
            if (digits > 6) return std::nullopt;
            values.emplace_back(datetime_text(*head >> 4, digits, fraction));
        } else {
            const std::uint64_t length = column.kind == ColumnKind::datetime ? *head >> 1 : *head;
            if (length > in.size() - at) return std::nullopt;
            values.emplace_back(std::string(in.substr(at, length)));
            at += length;
        }
    }
    if (at != in.size()) return std::nullopt;
    return values;
}

}  // namespace rowpump
