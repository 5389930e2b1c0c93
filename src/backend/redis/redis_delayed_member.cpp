#include "backend/redis/redis_delayed_member.hpp"

#include <algorithm>
#include <random>

namespace rowpump::redis {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

void append_hex(std::string& out, std::uint64_t value) {
    for (int shift = 60; shift >= 0; shift -= 4) out.push_back(hex_digits[(value >> shift) & 0xf]);
}

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// FNV-1a: stable across processes, machines and builds (std::hash is not).
std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
    for (const char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

}  // namespace

void append_delayed_tag(std::string& out, DelayedTag tag) {
    out.append(delayed_tag_marker);
    append_hex(out, tag.writer);
    append_hex(out, tag.sequence);
    out.push_back(':');
}

std::string delayed_member(DelayedTag tag, std::string_view payload) {
    std::string member;
    member.reserve(delayed_tag_size + payload.size());
    append_delayed_tag(member, tag);
    member.append(payload);
    return member;
}

std::string_view delayed_payload(std::string_view member) {
    const bool tagged = member.size() >= delayed_tag_size && member.starts_with(delayed_tag_marker) &&
                        member[delayed_tag_size - 1] == ':' &&
                        std::all_of(member.begin() + delayed_tag_marker.size(), member.begin() + delayed_tag_size - 1,
                                    is_lower_hex);
    return tagged ? member.substr(delayed_tag_size) : member;
}

std::uint64_t random_delayed_writer() {
    std::random_device device;
    std::uint64_t writer = 0;
    while (writer == 0) writer = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    return writer;
}

std::uint64_t ledger_delayed_writer(std::string_view job_id, std::size_t range) {
    // The NUL keeps ("job1", range 23) and ("job12", range 3) apart.
    std::uint64_t hash = fnv1a(0xcbf29ce484222325ULL, job_id);
    hash = fnv1a(hash, std::string_view("\0", 1));
    hash = fnv1a(hash, std::to_string(range));
    return hash == 0 ? 1 : hash;
}

}  // namespace rowpump::redis
