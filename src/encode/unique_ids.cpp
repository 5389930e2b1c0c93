#include "encode/unique_ids.hpp"

#include <random>

namespace rowpump {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";
constexpr std::uint64_t low60 = (std::uint64_t{1} << 60) - 1;

// Each step (xor with a right shift of itself, multiplication by an odd number) is invertible modulo
// 2^bits, so distinct inputs give distinct outputs.
std::uint64_t mix64(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

std::uint64_t mix60(std::uint64_t x) {
    x &= low60;
    x ^= x >> 29;
    x = (x * 0xbf58476d1ce4e5b9ULL) & low60;
    x ^= x >> 27;
    x = (x * 0x94d049bb133111ebULL) & low60;
    x ^= x >> 31;
    return x;
}

void append_hex(std::string& out, std::uint64_t value, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out.push_back(hex_digits[(value >> shift) & 0xf]);
}

std::uint64_t random_seed(std::random_device& device) {
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace

UniqueIds::UniqueIds() {
    std::random_device device;
    seed_a_ = random_seed(device);
    seed_b_ = random_seed(device);
}

void UniqueIds::append_jid(std::string& out) const {
    const std::uint64_t count = counter_.fetch_add(1, std::memory_order_relaxed);
    append_hex(out, mix64(count + seed_a_), 16);     // unique: a bijection of the counter
    append_hex(out, mix64(count + seed_b_) >> 32, 8);  // only keeps ids from looking alike
}

void UniqueIds::append_uuid4(std::string& out) const {
    // 60 unique bits (a bijection of the counter) around the version nibble, then the variant and 62 more.
    const std::uint64_t count = counter_.fetch_add(1, std::memory_order_relaxed);
    const std::uint64_t unique = mix60(count + seed_a_);
    const std::uint64_t tail = (mix64(count + seed_b_) & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
    append_hex(out, unique >> 28, 8);
    out.push_back('-');
    append_hex(out, unique >> 12, 4);
    out.append("-4", 2);
    append_hex(out, unique, 3);
    out.push_back('-');
    append_hex(out, tail >> 48, 4);
    out.push_back('-');
    append_hex(out, tail, 12);
}

}  // namespace rowpump
