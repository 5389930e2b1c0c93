#include "backend/redis_streams/stream_commands.hpp"

namespace rowpump::redis {

StreamCommands::StreamCommands(std::string key, std::uint64_t maxlen)
    : key_(std::move(key)), maxlen_(maxlen == 0 ? std::string() : std::to_string(maxlen)) {
    argv_ = {"XADD", key_};
    if (!maxlen_.empty()) argv_.insert(argv_.end(), {"MAXLEN", "~", maxlen_});
    argv_.insert(argv_.end(), {"*", stream_payload_field, ""});
}

std::span<const std::string_view> StreamCommands::xadd(std::string_view payload) {
    argv_.back() = payload;
    return argv_;
}

}  // namespace rowpump::redis
