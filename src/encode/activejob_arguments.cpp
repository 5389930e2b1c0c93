// A row as ActiveJob's argument serialization writes a Hash with string keys (ActiveJob::Arguments in
// Rails 6.1+, arguments.rb and serializers/):
//
//   {"id":1,"name":"...","price":{"_aj_serialized":"ActiveJob::Serializers::BigDecimalSerializer","value":"12.34"},
//    "seen":{"_aj_serialized":"ActiveJob::Serializers::TimeWithZoneSerializer","value":"2024-05-01T12:00:00.250000000Z"},
//    "born":{"_aj_serialized":"ActiveJob::Serializers::DateSerializer","value":"1990-01-31"},"_aj_symbol_keys":[]}
//
// serialize_argument puts "_aj_symbol_keys" (the keys that were Symbols: none) after a Hash's own keys;
// deserialize_hash takes it out again, so perform gets a Hash with string keys, as with --format sidekiq.
// Values are the JSON format's (json_encoder.cpp), except the types ActiveJob writes through its object
// serializers, which arrive as Ruby objects:
//   DECIMAL             BigDecimalSerializer (Rails 7.1+; 6.1 and 7.0 register it with add_serializers,
//                       docs/worker-formats.md), the server's exact text;
//   DATETIME, TIMESTAMP TimeWithZoneSerializer, iso8601(9) in UTC (rowpump's sessions read in UTC, and
//                       ActiveRecord with its default_timezone :utc reads both as that zone's TimeWithZone);
//   DATE                DateSerializer, iso8601.
// Zero dates ("0000-00-00") are no Ruby time: they stay strings, as the server sent them.
// ActiveJob refuses a Hash with one of its reserved keys; a column of such a name is refused up front.
#include <array>
#include <string_view>

#include "config/option_error.hpp"
#include "encode/encoders.hpp"
#include "encode/json_string.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

constexpr std::array<std::string_view, 5> reserved_keys{"_aj_globalid", "_aj_symbol_keys", "_aj_ruby2_keywords",
                                                        "_aj_serialized", "_aj_hash_with_indifferent_access"};

bool is_zero_date(std::string_view text) { return text.starts_with("0000-00-00"); }

void append_serialized(std::string_view serializer, std::string& out) {
    out.append("{\"_aj_serialized\":\"ActiveJob::Serializers::");
    out.append(serializer);
    out.append("\",\"value\":");
}

// "2024-05-01 12:00:00.25" -> "2024-05-01T12:00:00.250000000Z": Time#iso8601(9) of that instant in UTC.
void append_iso8601_nanos(std::string_view text, std::string& out) {
    out.push_back('"');
    out.append(text.substr(0, 10));
    out.push_back('T');
    out.append(text.substr(11, 8));
    out.push_back('.');
    const std::string_view fraction = text.size() > 20 ? text.substr(20, 9) : std::string_view();
    out.append(fraction);
    out.append(9 - fraction.size(), '0');
    out.append("Z\"", 2);
}

// "YYYY-MM-DD HH:MM:SS" with an optional fraction: the only DATETIME text a server sends besides zero dates.
bool is_datetime_text(std::string_view text) { return text.size() >= 19 && text[10] == ' ' && !is_zero_date(text); }

class ActiveJobArguments final : public RowEncoder {
public:
    ActiveJobArguments(std::vector<Column> columns, JsonStyle style) : columns_(std::move(columns)), style_(style) {
        for (const Column& column : columns_) {
            for (const auto reserved : reserved_keys)
                if (column.name == reserved)
                    throw UsageError("column '" + column.name + "' has a name ActiveJob reserves for its own "
                                     "serialization: leave it out with --columns");
            keys_.push_back(json_member_prefix(column.name, keys_.empty()));
        }
    }

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (page.column_count() < columns_.size())
            throw Error("cannot encode a page of " + std::to_string(page.column_count()) + " columns as ActiveJob "
                        "arguments with " + std::to_string(columns_.size()) + " columns");
        for (std::size_t column = 0; column < columns_.size(); ++column) {
            out.append(keys_[column]);
            const auto value = page.value(row, column);
            if (!value) out.append("null", 4);
            else append_value(columns_[column], *value, out);
        }
        out.append(columns_.empty() ? "{\"_aj_symbol_keys\":[]}" : ",\"_aj_symbol_keys\":[]}");
    }

    std::string header() const override { return {}; }

private:
    void append_value(const Column& column, std::string_view text, std::string& out) const {
        if (column.kind == ColumnKind::decimal) {
            append_serialized("BigDecimalSerializer", out);
            append_json_string(text, out);
            out.push_back('}');
        } else if (column.kind == ColumnKind::datetime && is_datetime_text(text)) {
            append_serialized("TimeWithZoneSerializer", out);
            append_iso8601_nanos(text, out);
            out.push_back('}');
        } else if (column.kind == ColumnKind::date && text.size() == 10 && !is_zero_date(text)) {
            append_serialized("DateSerializer", out);
            append_json_string(text, out);
            out.push_back('}');
        } else {
            append_json_value(column, text, style_, out);
        }
    }

    std::vector<Column> columns_;
    std::vector<std::string> keys_;  // each column's name as JSON, with the `{` or `,` before it
    JsonStyle style_;
};

}  // namespace

std::unique_ptr<RowEncoder> make_activejob_arguments(std::vector<Column> columns, JsonStyle style) {
    if (style.json_columns == JsonColumns::embed)
        throw config::OptionError({"ActiveJob reads a Hash's _aj_* keys as its own, so a JSON column is written as "
                                   "its text with --format activejob: drop ", config::OptionId::json_columns});
    return std::make_unique<ActiveJobArguments>(std::move(columns), style);
}

}  // namespace rowpump
