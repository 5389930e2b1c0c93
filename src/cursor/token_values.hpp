#pragma once
// The compact binary form of a token's sort values (cursor_token.hpp says the layout).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/key.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

void put_varint(std::string& out, std::uint64_t value);
// Reads a varint at `at`, moving it on; nullopt when cut short or longer than 64 bits.
std::optional<std::uint64_t> get_varint(std::string_view in, std::size_t& at);

void put_values(std::string& out, const std::vector<Column>& columns, const KeyValue& values);
// nullopt when the bytes do not hold one value for each column, exactly.
std::optional<KeyValue> get_values(std::string_view in, std::size_t at, const std::vector<Column>& columns);

}  // namespace rowpump
