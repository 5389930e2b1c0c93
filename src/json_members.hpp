#pragma once
// "key": value members of a JSON object written with a rapidjson writer, one line each, for the JSON the
// CLI prints and the HTTP endpoints serve. The value's type says how it is written: integers exact to 64
// bits, doubles to 3 decimals (2.972, not 2.9716128669999999) and null when not finite, text as a string,
// an empty optional as null. A caller with a type of its own overloads write_value for it, beside its writer.
#include <rapidjson/rapidjson.h>

#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>

namespace rowpump::json {

template <class Writer, class Value>
void write_value(Writer& json, const Value& value) {
    if constexpr (std::is_same_v<Value, bool>) {
        json.Bool(value);
    } else if constexpr (std::is_floating_point_v<Value>) {
        if (std::isfinite(value)) json.Double(std::round(static_cast<double>(value) * 1000) / 1000);
        else json.Null();
    } else if constexpr (std::is_integral_v<Value> && std::is_signed_v<Value>) {
        json.Int64(value);
    } else if constexpr (std::is_integral_v<Value>) {
        json.Uint64(value);
    } else {
        const std::string_view text(value);
        json.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    }
}

template <class Writer, class Value>
void write_value(Writer& json, const std::optional<Value>& value) {
    if (value) write_value(json, *value);
    else json.Null();
}

template <class Writer, class Value>
void member(Writer& json, const char* key, const Value& value) {
    json.Key(key);
    write_value(json, value);
}

}  // namespace rowpump::json
