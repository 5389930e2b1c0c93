#include "backend/redis_streams/stream_commands.hpp"

#include "backend/redis_streams/stream_scripts.hpp"

namespace rowpump::redis {

namespace {
constexpr std::size_t head = 5;  // EVAL, script, key count, key, maxlen
}

StreamCommands::StreamCommands(std::string key, std::uint64_t maxlen)
    : key_(std::move(key)), maxlen_(maxlen == 0 ? std::string() : std::to_string(maxlen)) {
    argv_ = {"EVAL", stream_scripts::append, "1", key_, maxlen_};
    argv_.reserve(head + append_chunk);
}

std::span<const std::string_view> StreamCommands::append(std::span<const std::string_view> payloads) {
    argv_.resize(head);
    argv_.insert(argv_.end(), payloads.begin(), payloads.end());
    return argv_;
}

}  // namespace rowpump::redis
