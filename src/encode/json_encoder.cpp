// JSON: one object per row keyed by column name, written by hand (json_string.hpp escapes the strings).
//
// Values keep the server's text wherever JSON can carry it. Integers, DECIMAL, BIT and YEAR are numbers
// written exactly as sent (BIGINT UNSIGNED max and DECIMAL(65,30) survive), FLOAT/DOUBLE too. Text JSON
// has no number for ("inf", "nan") becomes null rather than a string, so a consumer never finds a string
// in a numeric field. Binary columns are base64 strings. DATETIME and
// TIMESTAMP become ISO-8601 by turning the space between date and time into 'T', and a TIMESTAMP, which
// every session reads in UTC (apply_session_settings), ends in 'Z'; a DATETIME has no zone and gets none. Zero dates
// ("0000-00-00 00:00:00") are no ISO-8601 date at all, so they stay exactly as the server sent them for
// consumers to recognise. Text is escaped per RFC 8259: quotes, backslashes and control characters;
// everything else (U+2028 included, which RFC 8259 allows) is copied byte for byte, so the payload is
// valid UTF-8 whenever the server's text is, which it is for a utf8mb4 connection.
// Each row is written straight into the caller's buffer, which the pipeline reuses page after page, so a
// steady stream of rows allocates nothing.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "encode/base64.hpp"
#include "encode/encoders.hpp"
#include "encode/embedded_json.hpp"
#include "encode/json_number.hpp"
#include "encode/json_string.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

bool is_zero_date(std::string_view text) { return text.substr(0, 10) == "0000-00-00"; }

// Rewritten numbers are built here, one buffer per thread because encode() is const and may run in
// several workers at once.
std::string& number_scratch() {
    thread_local std::string scratch;
    return scratch;
}

// With BigNumbers::string: every DECIMAL (a column's values then share one JSON type), and integers that
// a double cannot hold exactly, those beyond JavaScript's Number.MAX_SAFE_INTEGER.
bool is_big_number(ColumnKind kind, std::string_view number) {
    if (kind == ColumnKind::decimal) return true;
    if (kind == ColumnKind::floating || kind == ColumnKind::year) return false;
    return !is_safe_integer(number);
}

// A number as a JSON string: its JSON spelling needs no escape.
void append_quoted(std::string_view number, std::string& out) {
    out.push_back('"');
    out.append(number);
    out.push_back('"');
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// An integer as the server writes an INT column's value ("0", "-12", "345"): already its JSON spelling,
// and with at most 15 digits inside JavaScript's safe integers, so a string under BigNumbers::string
// too. Anything else (ZEROFILL's leading zeros, "-0", 16 digits and more) takes append_json_value.
bool is_plain_small_integer(std::string_view text) {
    const std::size_t sign = text.starts_with('-') ? 1 : 0;
    const std::size_t digits = text.size() - sign;
    if (digits == 0 || digits > 15) return false;
    if (text[sign] == '0') return digits == 1 && sign == 0;
    for (std::size_t i = sign; i < text.size(); ++i)
        if (!is_digit(text[i])) return false;
    return true;
}

bool is_integer_kind(ColumnKind kind) {
    return kind == ColumnKind::signed_integer || kind == ColumnKind::unsigned_integer;
}

}  // namespace

void append_json_value(const Column& column, std::string_view text, JsonStyle style, std::string& out) {
    const ColumnKind kind = column.kind;
    const BigNumbers big_numbers = style.big_numbers;
    switch (kind) {
        case ColumnKind::decimal:
        case ColumnKind::signed_integer:
        case ColumnKind::unsigned_integer:
        case ColumnKind::bit:
        case ColumnKind::floating:
        case ColumnKind::year: {
            const auto number = json_number(text, number_scratch());
            if (!number) out.append("null", 4);
            else if (big_numbers == BigNumbers::string && is_big_number(kind, *number)) append_quoted(*number, out);
            else out.append(*number);
            return;
        }
        case ColumnKind::datetime: {
            const std::size_t start = out.size() + 1;  // after the opening quote
            append_json_string(text, out);
            // A date is digits and dashes: nothing before the space needed an escape.
            if (text.size() > 10 && text[10] == ' ' && !is_zero_date(text)) {
                out[start + 10] = 'T';
                if (is_timestamp(column)) out.insert(out.size() - 1, 1, 'Z');  // before the closing quote
            }
            return;
        }
        case ColumnKind::binary:
            out.push_back('"');
            base64_append(text, out);
            out.push_back('"');
            return;
        case ColumnKind::json:
            if (style.json_columns == JsonColumns::embed) {
                append_embedded_json(column.name, text, out);
                return;
            }
            append_json_string(text, out);
            return;
        case ColumnKind::date:
        case ColumnKind::time:
        case ColumnKind::text:
        case ColumnKind::other:
            append_json_string(text, out);
            return;
    }
}

namespace {

class JsonEncoder final : public RowEncoder {
public:
    JsonEncoder(std::vector<Column> columns, JsonStyle style) : columns_(std::move(columns)), style_(style) {
        kinds_.reserve(columns_.size());
        keys_.reserve(columns_.size());
        for (const Column& column : columns_) {
            kinds_.push_back(column.kind);
            keys_.push_back(json_member_prefix(column.name, keys_.empty()));
        }
    }

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (page.column_count() < kinds_.size())
            throw Error("cannot encode a page of " + std::to_string(page.column_count()) + " columns as JSON with " +
                        std::to_string(kinds_.size()) + " columns");
        if (kinds_.empty()) {
            out.append("{}", 2);
            return;
        }
        for (std::size_t column = 0; column < kinds_.size(); ++column) {
            out.append(keys_[column]);
            const auto value = page.value(row, column);
            if (!value) out.append("null", 4);
            // The common cases first, without the general number grammar or the switch: a 1000-row page of
            // sysbench rows took 79-91 us to encode, 62-71 us with them (encode_bench), 51-54 us with the
            // last block of json_string.cpp as well.
            else if (is_integer_kind(kinds_[column]) && is_plain_small_integer(*value)) out.append(*value);
            else if (kinds_[column] == ColumnKind::text) append_json_string(*value, out);
            else append_json_value(columns_[column], *value, style_, out);
        }
        out.push_back('}');
    }

    std::string header() const override { return {}; }

private:
    std::vector<Column> columns_;
    std::vector<ColumnKind> kinds_;  // columns_' kinds, for the common cases
    std::vector<std::string> keys_;  // each column's name as JSON, with the `{` or `,` before it
    JsonStyle style_;
};

}  // namespace

std::unique_ptr<RowEncoder> make_json_encoder(std::vector<Column> columns, JsonStyle style) {
    return std::make_unique<JsonEncoder>(std::move(columns), style);
}

}  // namespace rowpump
