#pragma once
// Which of a Redis Cluster's 16384 hash slots a key lives in: CRC16 (XMODEM) of the key, or of its hash tag,
// modulo 16384, as the cluster specification defines it. Keys with the same tag share a slot, and only
// keys of one slot can meet in one MULTI/EXEC, one Lua script or one multi-key command.
#include <cstdint>
#include <string_view>

namespace rowpump::redis {

inline constexpr std::uint16_t cluster_slots = 16384;

// The part of `key` that is hashed: what lies between the first '{' and the next '}' when that is not
// empty, else the whole key.
std::string_view hash_tag(std::string_view key);
std::uint16_t key_slot(std::string_view key);

}  // namespace rowpump::redis
