#pragma once
// Where a row becomes a payload: encoders turn one row of a page into one string.
#include <memory>
#include <string>
#include <vector>

#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

enum class Format { json, csv, payload_template };

// "json", "csv" or "template"; throws UsageError otherwise.
Format parse_format(const std::string& name);

// How JSON carries DECIMAL and integers beyond +-(2^53 - 1): as numbers (exact text, the default) or as
// strings, which consumers that parse numbers into doubles (PHP json_decode, JS JSON.parse) keep exact.
enum class BigNumbers { number, string };
// "number" or "string"; throws UsageError otherwise.
BigNumbers parse_big_numbers(const std::string& name);

// Settings of the payload formats besides the format itself (docs/payloads-and-names.md).
struct PayloadOptions {
    // Format::payload_template: {column} the raw value (NULL: nothing), {column:json} its JSON, {row} the
    // row's JSON object, {{ and }} literal braces.
    std::string template_text;
    BigNumbers big_numbers = BigNumbers::number;  // json, {column:json} and {row}
};

// Throws UsageError for options that cannot work whatever the table: a template without
// Format::payload_template or the other way round, and a malformed template (bad braces, an empty
// placeholder, an unknown modifier), with its position. Column names are checked by make_encoder.
void check_payload_options(Format format, const PayloadOptions& payload);

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
// The same with the payload options; throws UsageError for a template naming a column not in `columns`.
std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const PayloadOptions& payload);

// Standard base64 with padding (RFC 4648). Exposed for tests.
std::string base64_encode(std::string_view bytes);

}  // namespace rowpump
