// JSON: one object per row keyed by column name, written with rapidjson's Writer.
//
// Values keep the server's text wherever JSON can carry it. Integers, DECIMAL, BIT and YEAR are numbers
// written exactly as sent (BIGINT UNSIGNED max and DECIMAL(65,30) survive), FLOAT/DOUBLE too. Text JSON
// has no number for ("inf", "nan") becomes null rather than a string, so a consumer never finds a string
// in a numeric field. Binary columns are base64 strings. DATETIME and
// TIMESTAMP become ISO-8601 by turning the space between date and time into 'T'; zero dates
// ("0000-00-00 00:00:00") are no ISO-8601 date at all, so they stay exactly as the server sent them for
// consumers to recognise. Text is escaped per RFC 8259: quotes, backslashes and control characters;
// everything else (U+2028 included, which RFC 8259 allows) is copied byte for byte, so the payload is
// valid UTF-8 whenever the server's text is, which it is for a utf8mb4 connection.
// Text columns are mostly runs of characters that need no escape: rapidjson scans them 16 bytes at a
// time with SSE2 (every x86-64 CPU has it) instead of one byte at a time.
#if defined(__SSE4_2__)
#define RAPIDJSON_SSE42
#elif defined(__SSE2__)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/stringbuffer.h>
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

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

rapidjson::SizeType json_size(std::string_view text) { return static_cast<rapidjson::SizeType>(text.size()); }

bool is_zero_date(std::string_view text) { return text.substr(0, 10) == "0000-00-00"; }

// A row is written into buffers reused row after row, one set per thread because encode() is const and
// may run in several workers at once. Each keeps the size of the largest row its thread encoded.
struct Workspace {
    rapidjson::StringBuffer json;
    JsonWriter writer;
    std::string scratch;  // base64 of binary values, rewritten numbers, ISO dates
};

// Not inlined: inlined, GCC recomputes the thread-local address (a __tls_get_addr call in a shared
// library) at every use in encode() instead of keeping it; out of line, it is one call per row.
[[gnu::noinline]] Workspace& workspace() {
    thread_local Workspace buffers;
    return buffers;
}

class JsonEncoder final : public RowEncoder {
public:
    explicit JsonEncoder(std::vector<Column> columns) {
        kinds_.reserve(columns.size());
        keys_.reserve(columns.size());
        for (const Column& column : columns) {
            kinds_.push_back(column.kind);
            rapidjson::StringBuffer key;
            JsonWriter writer(key);
            writer.String(column.name.data(), json_size(column.name));
            keys_.emplace_back(key.GetString(), key.GetSize());
        }
    }

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (page.column_count() < kinds_.size())
            throw Error("cannot encode a page of " + std::to_string(page.column_count()) + " columns as JSON with " +
                        std::to_string(kinds_.size()) + " columns");
        Workspace& work = workspace();
        work.json.Clear();
        JsonWriter& writer = work.writer;
        writer.Reset(work.json);
        writer.StartObject();
        for (std::size_t column = 0; column < kinds_.size(); ++column) {
            // Column names were escaped once, in the constructor.
            writer.RawValue(keys_[column].data(), keys_[column].size(), rapidjson::kStringType);
            const auto value = page.value(row, column);
            if (value) write_value(writer, work.scratch, kinds_[column], *value);
            else writer.Null();
        }
        writer.EndObject();
        out.append(work.json.GetString(), work.json.GetSize());
    }

    std::string header() const override { return {}; }

private:
    static void write_value(JsonWriter& writer, std::string& scratch, ColumnKind kind, std::string_view text) {
        switch (kind) {
            case ColumnKind::signed_integer:
            case ColumnKind::unsigned_integer:
            case ColumnKind::decimal:
            case ColumnKind::floating:
            case ColumnKind::bit:
            case ColumnKind::year:
                // Writer::RawNumber would quote the number (rapidjson issue #852): RawValue does not.
                if (const auto number = json_number(text, scratch))
                    writer.RawValue(number->data(), number->size(), rapidjson::kNumberType);
                else
                    writer.Null();
                return;
            case ColumnKind::datetime:
                if (text.size() > 10 && text[10] == ' ' && !is_zero_date(text)) {
                    scratch.assign(text);
                    scratch[10] = 'T';
                    writer.String(scratch.data(), json_size(scratch));
                    return;
                }
                break;
            case ColumnKind::binary: {
                scratch.clear();
                base64_append(text, scratch);
                writer.String(scratch.data(), json_size(scratch));
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
