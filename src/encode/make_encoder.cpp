#include "encode/encoders.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

Format parse_format(const std::string& name) {
    if (name == "json") return Format::json;
    if (name == "csv") return Format::csv;
    throw UsageError("unknown format '" + name + "': expected json or csv");
}

std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns) {
    switch (format) {
        case Format::json: return make_json_encoder(std::move(columns));
        case Format::csv: return make_csv_encoder(std::move(columns));
    }
    throw Error("unknown encoder format " + std::to_string(static_cast<int>(format)));
}

}  // namespace rowpump
