#pragma once
// Redis answers WRONGTYPE only when a command touches a key of another type, mid-run and in its own words.
// Checking the keys of a queue up front turns that into one line that names the key.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rowpump::redis {

class Connection;

// (key, expected TYPE: "list", "zset", "hash", ...). A key that does not exist yet is fine. Throws
// UsageError for the first key of another type: "key K is a string, expected a list: choose another --queue".
void expect_key_types(Connection& connection, const std::vector<std::pair<std::string, std::string_view>>& keys);

}  // namespace rowpump::redis
