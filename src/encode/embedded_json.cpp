#include "encode/embedded_json.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// rapidjson's Writer writes a raw number (kParseNumbersAsStringsFlag) as a string: this one writes its text.
class CompactWriter : public rapidjson::Writer<rapidjson::StringBuffer> {
public:
    using Writer::Writer;
    bool RawNumber(const Ch* text, rapidjson::SizeType length, bool) {
        return RawValue(text, length, rapidjson::kNumberType);
    }
};

}  // namespace

void append_embedded_json(std::string_view column, std::string_view text, std::string& out) {
    // Read and written again rather than copied: the text may be pretty-printed over several lines. Numbers
    // pass as their text (kParseNumbersAsStringsFlag), so no integer or decimal is rounded on the way.
    rapidjson::MemoryStream memory(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> input(memory);
    thread_local rapidjson::StringBuffer compact;
    compact.Clear();
    CompactWriter writer(compact);
    rapidjson::Reader reader;
    constexpr unsigned flags = rapidjson::kParseValidateEncodingFlag | rapidjson::kParseNumbersAsStringsFlag;
    const rapidjson::ParseResult parsed = reader.Parse<flags>(input, writer);
    if (!parsed)
        throw config::OptionFailure({"column `" + std::string(column) + "` holds a value that is not JSON (" +
                                         rapidjson::GetParseError_En(parsed.Code()) + " at byte " +
                                         std::to_string(parsed.Offset()) + "), which ",
                                     config::OptionId::json_columns, " embed cannot embed: fix the row, or use ",
                                     config::OptionId::json_columns, " string"});
    out.append(compact.GetString(), compact.GetSize());
}

}  // namespace rowpump
