#include "redis/key_types.hpp"

#include "redis/connection.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

std::string noun(std::string_view type) {
    if (type == "zset") return "a sorted set (zset)";
    return "a " + std::string(type);
}

}  // namespace

void expect_key_types(Connection& connection, const std::vector<std::pair<std::string, std::string_view>>& keys) {
    for (const auto& key : keys) connection.append({"TYPE", key.first});
    const auto types = connection.read_replies(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::string& type = types[i].text;
        if (type == keys[i].second || type == "none") continue;
        throw UsageError("key " + keys[i].first + " is " + noun(type) + ", expected " + noun(keys[i].second) +
                         ": choose another --queue");
    }
}

}  // namespace rowpump::redis
