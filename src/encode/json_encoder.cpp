// JSON: one object per row keyed by column name, written with rapidjson's Writer straight into the
// caller's buffer.
//
// Values keep the server's text wherever JSON can carry it. Integers, DECIMAL, BIT and YEAR are numbers
// written exactly as sent (BIGINT UNSIGNED max and DECIMAL(65,30) survive); FLOAT/DOUBLE too, except that
// text JSON has no number for (inf, nan) becomes null. Binary columns are base64 strings. DATETIME and
// TIMESTAMP become ISO-8601 by turning the space between date and time into 'T'; zero dates
// ("0000-00-00 00:00:00") are no ISO-8601 date at all, so they stay exactly as the server sent them for
// consumers to recognise. Text is escaped per RFC 8259: quotes, backslashes and control characters;
// everything else (U+2028 included, which RFC 8259 allows) is copied byte for byte, so the payload is
// valid UTF-8 whenever the server's text is, which it is for a utf8mb4 connection.
#include <rapidjson/allocators.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "encode/base64.hpp"
#include "encode/encoders.hpp"
#include "encode/json_number.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// A rapidjson output stream that appends to a std::string the caller owns.
class AppendStream {
public:
    using Ch = char;
    explicit AppendStream(std::string& out) : out_(out) {}
    void Put(char c) { out_.push_back(c); }
    void Flush() {}

private:
    std::string& out_;
};

// The writer tracks its one nesting level on a stack allocator living in the encode() frame, so a row
// costs no allocation of its own.
using LevelAllocator = rapidjson::MemoryPoolAllocator<rapidjson::CrtAllocator>;
using JsonWriter = rapidjson::Writer<AppendStream, rapidjson::UTF8<>, rapidjson::UTF8<>, LevelAllocator>;

rapidjson::SizeType json_size(std::string_view text) { return static_cast<rapidjson::SizeType>(text.size()); }

bool is_zero_date(std::string_view text) { return text.substr(0, 10) == "0000-00-00"; }

// Base64 of binary values, rewritten numbers and ISO dates are built here: one buffer per thread, reused,
// because encode() is const and may be called from several workers at once.
std::string& scratch_buffer() {
    thread_local std::string buffer;
    return buffer;
}

class JsonEncoder final : public RowEncoder {
public:
    explicit JsonEncoder(std::vector<Column> columns) {
        kinds_.reserve(columns.size());
        keys_.reserve(columns.size());
        for (const Column& column : columns) {
            kinds_.push_back(column.kind);
            std::string key;
            AppendStream stream(key);
            JsonWriter writer(stream);
            writer.String(column.name.data(), json_size(column.name));
            keys_.push_back(std::move(key));
        }
    }

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (page.column_count() < kinds_.size())
            throw Error("cannot encode a page of " + std::to_string(page.column_count()) + " columns as JSON with " +
                        std::to_string(kinds_.size()) + " columns");
        alignas(std::max_align_t) char level_memory[128];
        LevelAllocator level_allocator(level_memory, sizeof level_memory);
        AppendStream stream(out);
        JsonWriter writer(stream, &level_allocator, 1);
        writer.StartObject();
        for (std::size_t column = 0; column < kinds_.size(); ++column) {
            // Column names were escaped once, in the constructor.
            writer.RawValue(keys_[column].data(), keys_[column].size(), rapidjson::kStringType);
            const auto value = page.value(row, column);
            if (value) write_value(writer, kinds_[column], *value);
            else writer.Null();
        }
        writer.EndObject();
    }

    std::string header() const override { return {}; }

private:
    static void write_value(JsonWriter& writer, ColumnKind kind, std::string_view text) {
        switch (kind) {
            case ColumnKind::signed_integer:
            case ColumnKind::unsigned_integer:
            case ColumnKind::decimal:
            case ColumnKind::floating:
            case ColumnKind::bit:
            case ColumnKind::year:
                // Writer::RawNumber would quote the number (rapidjson issue #852): RawValue does not.
                if (const auto number = json_number(text, scratch_buffer()))
                    writer.RawValue(number->data(), number->size(), rapidjson::kNumberType);
                else
                    writer.Null();
                return;
            case ColumnKind::datetime:
                if (text.size() > 10 && text[10] == ' ' && !is_zero_date(text)) {
                    std::string& iso = scratch_buffer();
                    iso.assign(text);
                    iso[10] = 'T';
                    writer.String(iso.data(), json_size(iso));
                    return;
                }
                break;
            case ColumnKind::binary: {
                std::string& base64 = scratch_buffer();
                base64.clear();
                base64_append(text, base64);
                writer.String(base64.data(), json_size(base64));
                return;
            }
            case ColumnKind::date:
            case ColumnKind::time:
            case ColumnKind::text:
            case ColumnKind::json:
            case ColumnKind::other:
                break;
        }
        writer.String(text.data(), json_size(text));
    }

    std::vector<ColumnKind> kinds_;
    std::vector<std::string> keys_;  // each column name as a JSON string, quotes included
};

}  // namespace

std::unique_ptr<RowEncoder> make_json_encoder(std::vector<Column> columns) {
    return std::make_unique<JsonEncoder>(std::move(columns));
}

}  // namespace rowpump
