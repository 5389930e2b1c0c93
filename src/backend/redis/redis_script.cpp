#include "backend/redis/redis_script.hpp"

namespace rowpump::queue {

void RedisScript::load(redis::Connection& connection) {
    sha_ = connection.command({"SCRIPT", "LOAD", source_}).text;
}

redis::Reply RedisScript::run(redis::Connection& connection, std::initializer_list<std::string_view> keys,
                              std::initializer_list<std::string_view> args) {
    return run(connection, std::span<const std::string_view>(keys.begin(), keys.size()),
               std::span<const std::string_view>(args.begin(), args.size()));
}

redis::Reply RedisScript::run(redis::Connection& connection, std::span<const std::string_view> keys,
                              std::span<const std::string_view> args) {
    if (sha_.empty()) load(connection);
    const std::string key_count = std::to_string(keys.size());
    for (int attempt = 1;; ++attempt) {
        argv_.clear();
        argv_.reserve(3 + keys.size() + args.size());
        argv_.push_back("EVALSHA");
        argv_.push_back(sha_);
        argv_.push_back(key_count);
        argv_.insert(argv_.end(), keys.begin(), keys.end());
        argv_.insert(argv_.end(), args.begin(), args.end());
        try {
            return connection.command(argv_);
        } catch (const QueueError& error) {
            if (attempt > 1 || std::string_view(error.what()).find("NOSCRIPT") == std::string_view::npos) throw;
            load(connection);
        }
    }
}

}  // namespace rowpump::queue
