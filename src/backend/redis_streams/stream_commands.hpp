#pragma once
// The command a stream sink adds an entry with, as an argument vector: no connection, so unit tests read it
// as it is sent. A page is one such XADD a message, pipelined (stream_page_writer.hpp).
//
// Each message is one entry with one field, `payload`, holding the payload exactly as the list backend
// pushes it (JSON, CSV, a template's text): a consumer reads the same bytes from a stream as from a list,
// and `queue consume` hands them to its handler unchanged (docs/streams.md).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump::redis {

inline constexpr std::string_view stream_payload_field = "payload";

class StreamCommands {
public:
    // `maxlen` 0: no trim; else each XADD trims to about that many entries (MAXLEN ~ N: whole macro nodes,
    // cheap, never below N).
    StreamCommands(std::string key, std::uint64_t maxlen);
    // The argument vector points into this object's strings: it stays where it was made.
    StreamCommands(const StreamCommands&) = delete;
    StreamCommands& operator=(const StreamCommands&) = delete;

    // XADD <key> [MAXLEN ~ <maxlen>] * payload <payload>. Views into this object and the payload, valid
    // until the next call.
    std::span<const std::string_view> xadd(std::string_view payload);

    const std::string& key() const noexcept { return key_; }

private:
    std::string key_;
    std::string maxlen_;  // empty: no trim
    std::vector<std::string_view> argv_;
};

}  // namespace rowpump::redis
