#pragma once
// A key value as JSON, for the CLI's JSON outputs: an array of its parts (integers as numbers, exact to
// 64 bits; other parts as the server's text), null for an open bound.
#include <rapidjson/rapidjson.h>

#include <optional>
#include <string>
#include <variant>

#include "rowpump/key.hpp"

namespace rowpump::cli {

template <class Writer>
void write_key(Writer& writer, const std::optional<KeyValue>& key) {
    if (!key) {
        writer.Null();
        return;
    }
    writer.StartArray();
    for (const auto& part : *key) {
        if (const auto* s = std::get_if<std::int64_t>(&part)) writer.Int64(*s);
        else if (const auto* u = std::get_if<std::uint64_t>(&part)) writer.Uint64(*u);
        else {
            const auto& text = std::get<std::string>(part);
            writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
        }
    }
    writer.EndArray();
}

}  // namespace rowpump::cli
