#include "encode/encoders.hpp"
#include "encode/payload_template.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

Format parse_format(const std::string& name) {
    if (name == "json") return Format::json;
    if (name == "csv") return Format::csv;
    if (name == "template") return Format::payload_template;
    throw UsageError("unknown format '" + name + "': expected json, csv or template");
}

std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns) {
    switch (format) {
        case Format::json: return make_json_encoder(std::move(columns));
        case Format::csv: return make_csv_encoder(std::move(columns));
        case Format::payload_template: return make_encoder(format, std::move(columns), PayloadOptions{});
    }
    throw Error("unknown encoder format " + std::to_string(static_cast<int>(format)));
}

BigNumbers parse_big_numbers(const std::string& name) {
    if (name == "number") return BigNumbers::number;
    if (name == "string") return BigNumbers::string;
    throw UsageError("unknown big-numbers mode '" + name + "': expected number or string");
}

void check_payload_options(Format format, const PayloadOptions& payload) {
    if (format != Format::payload_template && !payload.template_text.empty())
        throw UsageError("a template is given but the format is not template: add --format template (YAML: "
                         "format: template), or drop the template");
    if (format == Format::payload_template) parse_payload_template(payload.template_text);
}

std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const PayloadOptions& payload) {
    check_payload_options(format, payload);
    if (format == Format::payload_template)
        return make_template_encoder(payload.template_text, std::move(columns), payload.big_numbers);
    if (format == Format::json) return make_json_encoder(std::move(columns), payload.big_numbers);
    return make_encoder(format, std::move(columns));
}

}  // namespace rowpump
