#include "checkpoint/key_codec.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "paging/key_predicate.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

std::string encode_key(const KeyValue& key) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.StartArray();
    for (const auto& part : key) {
        std::string text;
        if (auto s = std::get_if<std::int64_t>(&part)) text = std::to_string(*s);
        else if (auto u = std::get_if<std::uint64_t>(&part)) text = std::to_string(*u);
        else text = std::get<std::string>(part);
        writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    }
    writer.EndArray();
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string encode_key(const std::optional<KeyValue>& key) { return key ? encode_key(*key) : std::string(); }

KeyValue decode_key(const std::string& text, const std::vector<Column>& key_columns) {
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    if (document.HasParseError() || !document.IsArray() || document.Size() != key_columns.size())
        throw Error("stored key '" + text + "' does not match the key's " + std::to_string(key_columns.size()) +
                    " columns: the job state was written by another definition");
    KeyValue key;
    for (rapidjson::SizeType i = 0; i < document.Size(); ++i) {
        if (!document[i].IsString()) throw Error("stored key '" + text + "' holds a non-string part");
        key.push_back(key_part_from_text(key_columns[i],
                                         std::string_view(document[i].GetString(), document[i].GetStringLength())));
    }
    return key;
}

std::optional<KeyValue> decode_optional_key(const std::string& text, const std::vector<Column>& key_columns) {
    if (text.empty()) return std::nullopt;
    return decode_key(text, key_columns);
}

}  // namespace rowpump
