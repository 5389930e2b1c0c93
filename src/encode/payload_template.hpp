#pragma once
// Payload templates (--format template): literal text with placeholders, in the brace syntax of
// brace_template.hpp. {column} is the raw value, {column:json} its JSON, {row} the row's JSON object;
// {column:raw} names a raw column whose name holds ':' or is "row". Parsed here once into segments,
// so encoding a row only appends.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump {

struct TemplateSegment {
    enum class Kind { text, raw, json, row };
    Kind kind = Kind::text;
    std::string text;           // Kind::text: the literal; raw and json: the column's name
    std::size_t position = 0;   // 1-based, where the segment starts in the template
};

// Throws UsageError with the position for bad braces, an empty placeholder or an unknown modifier, and
// for an empty template.
std::vector<TemplateSegment> parse_payload_template(std::string_view text);

}  // namespace rowpump
