#pragma once
// Where a row becomes a payload: encoders turn one row of a page into one string.
#include <memory>
#include <string>
#include <vector>

#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

enum class Format { json, csv };

// "json" or "csv"; throws UsageError otherwise.
Format parse_format(const std::string& name);

class RowEncoder {
public:
    virtual ~RowEncoder() = default;
    // Appends the payload of `row` to `out`, without a line end.
    virtual void encode(const Page& page, std::size_t row, std::string& out) const = 0;
    // A first line to write before any row (the CSV header); empty when the format has none.
    virtual std::string header() const = 0;
};

// JSON: one object per row keyed by column name. NULL is null; integers, DECIMAL and BIGINT UNSIGNED
// are numbers written exactly as the server sent them; FLOAT/DOUBLE numbers; binary columns base64
// strings; dates and times ISO-8601 strings ("2024-05-01T12:00:00.250000"); text escaped per RFC 8259.
// CSV (RFC 4180): a header line, fields quoted when they hold a comma, quote, CR or LF; NULL is an
// empty field and an empty string is "".
// `columns` describe the page's first columns; any further page columns are ignored.
std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns);

// Standard base64 with padding (RFC 4648). Exposed for tests.
std::string base64_encode(std::string_view bytes);

}  // namespace rowpump
