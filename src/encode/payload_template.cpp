// The template encoder: segments compiled once against the columns, then each row appended straight into
// the caller's reused buffer (no per-row allocation, as in the JSON encoder).
//
// A raw value is the server's text byte for byte (binary columns their bytes, DATETIME with its space);
// NULL inserts nothing, so write {column:json} where NULL must be told apart from an empty value.
#include "encode/payload_template.hpp"

#include <memory>

#include "brace_template.hpp"
#include "config/option_error.hpp"
#include "encode/encoders.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

constexpr std::string_view what = "template";

TemplateSegment placeholder(const BracePart& part, std::string_view text) {
    const std::size_t colon = part.text.rfind(':');
    const std::string name = part.text.substr(0, colon);
    if (colon == std::string::npos) {
        if (name == "row") return {TemplateSegment::Kind::row, {}, part.position};
        return {TemplateSegment::Kind::raw, name, part.position};
    }
    const std::string modifier = part.text.substr(colon + 1);
    if (name.empty())
        throw UsageError(template_error(what, text, "no column name in {" + part.text + "}", part.position,
                                        "write {column}, {column:json} or {row}"));
    if (modifier == "json") return {name == "row" ? TemplateSegment::Kind::row : TemplateSegment::Kind::json, name, part.position};
    if (modifier == "raw") return {TemplateSegment::Kind::raw, name, part.position};
    throw UsageError(template_error(what, text, "unknown modifier ':" + modifier + "' in {" + part.text + "}",
                                    part.position, "write {column}, {column:json} or {column:raw}"));
}

struct Step {
    TemplateSegment::Kind kind;
    std::string literal;
    std::size_t column = 0;
    Column description;  // of `column`, for its JSON
};

std::size_t column_index(const TemplateSegment& segment, std::string_view text, const std::vector<Column>& columns) {
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == segment.text) return i;
    std::string names;
    for (const Column& column : columns) names += (names.empty() ? "" : ", ") + column.name;
    throw UsageError(template_error(what, text, "unknown column '" + segment.text + "'", segment.position,
                                    "the columns read are " + names + " (or {row} for all of them)"));
}

class TemplateEncoder final : public RowEncoder {
public:
    TemplateEncoder(const std::string& text, std::vector<Column> columns, JsonStyle style)
        : columns_(columns.size()), style_(style) {
        for (TemplateSegment& segment : parse_payload_template(text)) {
            Step step{segment.kind, {}, 0, {}};
            if (segment.kind == TemplateSegment::Kind::text) step.literal = std::move(segment.text);
            if (segment.kind == TemplateSegment::Kind::raw || segment.kind == TemplateSegment::Kind::json) {
                step.column = column_index(segment, text, columns);
                step.description = columns[step.column];
            }
            if (segment.kind == TemplateSegment::Kind::row && !row_) row_ = make_json_encoder(columns, style);
            steps_.push_back(std::move(step));
        }
    }

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (page.column_count() < columns_)
            throw Error("cannot encode a page of " + std::to_string(page.column_count()) + " columns with a template of " +
                        std::to_string(columns_) + " columns");
        for (const Step& step : steps_) {
            switch (step.kind) {
                case TemplateSegment::Kind::text:
                    out.append(step.literal);
                    break;
                case TemplateSegment::Kind::raw:
                    if (const auto value = page.value(row, step.column)) out.append(*value);
                    break;
                case TemplateSegment::Kind::json:
                    if (const auto value = page.value(row, step.column))
                        append_json_value(step.description, *value, style_, out);
                    else
                        out.append("null", 4);
                    break;
                case TemplateSegment::Kind::row:
                    row_->encode(page, row, out);
                    break;
            }
        }
    }

    std::string header() const override { return {}; }

private:
    std::size_t columns_;
    JsonStyle style_;
    std::vector<Step> steps_;
    std::unique_ptr<RowEncoder> row_;  // for {row}
};

}  // namespace

std::vector<TemplateSegment> parse_payload_template(std::string_view text) {
    if (text.empty())
        throw config::OptionError({"empty template: give ", config::OptionId::payload_template, ", e.g. '{id}'"});
    std::vector<TemplateSegment> segments;
    for (const BracePart& part : split_braces(text, what)) {
        if (part.placeholder) segments.push_back(placeholder(part, text));
        else segments.push_back({TemplateSegment::Kind::text, part.text, part.position});
    }
    return segments;
}

std::unique_ptr<RowEncoder> make_template_encoder(const std::string& template_text, std::vector<Column> columns,
                                                  JsonStyle style) {
    return std::make_unique<TemplateEncoder>(template_text, std::move(columns), style);
}

}  // namespace rowpump
