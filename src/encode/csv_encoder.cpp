// CSV (RFC 4180): a header line of column names, then one record per row.
//
// A field is quoted when it holds a comma, a double quote, CR or LF, or begins or ends with a space (which
// some readers would trim); quotes inside are doubled. NULL is an empty unquoted field and an empty value
// is "", so the two stay apart. Values keep the server's text, dates included ("2024-05-01 12:00:00" rather
// than JSON's ISO 'T' form): spreadsheets and LOAD DATA read that form as a date. Binary columns are base64,
// which never needs quoting.
//
// CsvNull::backslash_n writes NULL as \N instead, as mysqldump --tab does, and then doubles every backslash
// of a value: that is how LOAD DATA ... ESCAPED BY '\\' tells a NULL from the two characters \N.
#include <string>
#include <string_view>
#include <vector>

#include "encode/base64.hpp"
#include "encode/encoders.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

bool needs_quotes(std::string_view field) {
    if (field.empty() || field.front() == ' ' || field.back() == ' ') return true;
    for (const char c : field) {
        if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
    }
    return false;
}

// Appends `field`, doubling each `special` character (a quote; with \N nulls, a backslash too).
void append_doubling(std::string_view field, std::string_view special, std::string& out) {
    for (std::size_t at; (at = field.find_first_of(special)) != std::string_view::npos;) {
        out.append(field.data(), at + 1);
        out += field[at];
        field.remove_prefix(at + 1);
    }
    out += field;
}

void append_field(std::string_view field, CsvNull null, std::string& out) {
    const bool escapes = null == CsvNull::backslash_n;
    // LOAD DATA ... ENCLOSED BY '"' also reads an unquoted NULL as NULL: the word as text is quoted.
    if (!needs_quotes(field) && !(escapes && field == "NULL")) {
        if (escapes) append_doubling(field, "\\", out);
        else out += field;
        return;
    }
    out += '"';
    append_doubling(field, escapes ? "\"\\" : "\"", out);
    out += '"';
}

class CsvEncoder final : public RowEncoder {
public:
    CsvEncoder(std::vector<Column> columns, CsvNull null) : columns_(std::move(columns)), null_(null) {}

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (page.column_count() < columns_.size())
            throw Error("cannot encode a page of " + std::to_string(page.column_count()) + " columns as CSV with " +
                        std::to_string(columns_.size()) + " columns");
        for (std::size_t column = 0; column < columns_.size(); ++column) {
            if (column > 0) out += ',';
            const auto value = page.value(row, column);
            if (!value) {
                if (null_ == CsvNull::backslash_n) out.append("\\N", 2);
                continue;
            }
            if (columns_[column].kind == ColumnKind::binary && !value->empty()) base64_append(*value, out);
            else append_field(*value, null_, out);
        }
    }

    std::string header() const override {
        std::string line;
        for (std::size_t column = 0; column < columns_.size(); ++column) {
            if (column > 0) line += ',';
            append_field(columns_[column].name, null_, line);
        }
        return line;
    }

private:
    std::vector<Column> columns_;
    CsvNull null_;
};

}  // namespace

std::unique_ptr<RowEncoder> make_csv_encoder(std::vector<Column> columns, CsvNull null) {
    return std::make_unique<CsvEncoder>(std::move(columns), null);
}

}  // namespace rowpump
