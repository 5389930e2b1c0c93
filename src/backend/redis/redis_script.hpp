#pragma once
// A Lua script run by its SHA1 (EVALSHA), so each call sends a few bytes instead of the script. The
// server loads it on first use and again whenever it has forgotten it (restart, SCRIPT FLUSH).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/connection.hpp"

namespace rowpump::queue {

class RedisScript {
public:
    explicit RedisScript(std::string_view source) : source_(source) {}

    // Runs the script; errors as redis::Connection::command throws them.
    redis::Reply run(redis::Connection& connection, std::span<const std::string_view> keys,
                     std::span<const std::string_view> args);
    redis::Reply run(redis::Connection& connection, std::initializer_list<std::string_view> keys,
                     std::initializer_list<std::string_view> args);

private:
    void load(redis::Connection& connection);

    std::string_view source_;
    std::string sha_;
    std::vector<std::string_view> argv_;  // reused between calls
};

}  // namespace rowpump::queue
