#include "redis/cluster_slot.hpp"

namespace rowpump::redis {

namespace {

// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection; bit by bit, since keys are short.
std::uint16_t crc16(std::string_view bytes) {
    std::uint16_t crc = 0;
    for (const char byte : bytes) {
        crc ^= static_cast<std::uint16_t>(static_cast<unsigned char>(byte) << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021) : static_cast<std::uint16_t>(crc << 1);
    }
    return crc;
}

}  // namespace

std::string_view hash_tag(std::string_view key) {
    const auto open = key.find('{');
    if (open == std::string_view::npos) return key;
    const auto close = key.find('}', open + 1);
    if (close == std::string_view::npos || close == open + 1) return key;
    return key.substr(open + 1, close - open - 1);
}

std::uint16_t key_slot(std::string_view key) { return static_cast<std::uint16_t>(crc16(hash_tag(key)) % cluster_slots); }

}  // namespace rowpump::redis
