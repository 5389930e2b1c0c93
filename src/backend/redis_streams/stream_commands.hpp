#pragma once
// The commands a page of a stream sink is written with, as argument vectors: no connection, so unit tests
// read them as they are sent. A page's entries go in calls of the append script (stream_scripts::append),
// each adding up to `append_chunk` entries with one XADD apiece inside Redis.
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
// Entries per call of the append script: Redis runs a call to its end before any other client's command,
// and 1,000 XADDs take it about a millisecond.
inline constexpr std::size_t append_chunk = 1000;

class StreamCommands {
public:
    // `maxlen` 0: no trim; else each XADD trims to about that many entries (MAXLEN ~ N: whole macro nodes,
    // cheap, never below N).
    StreamCommands(std::string key, std::uint64_t maxlen);
    // The argument vector points into this object's strings: it stays where it was made.
    StreamCommands(const StreamCommands&) = delete;
    StreamCommands& operator=(const StreamCommands&) = delete;

    // EVAL <append> 1 <key> <maxlen or ''> <payload>...: the entries of `payloads`, at most append_chunk.
    // Views into this object and the payloads, valid until the next call.
    std::span<const std::string_view> append(std::span<const std::string_view> payloads);

    const std::string& key() const noexcept { return key_; }

private:
    std::string key_;
    std::string maxlen_;  // empty: no trim
    std::vector<std::string_view> argv_;
};

}  // namespace rowpump::redis
