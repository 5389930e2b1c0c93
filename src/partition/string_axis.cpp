#include "partition/string_axis.hpp"

#include <algorithm>
#include <map>

namespace rowpump {

namespace {

// The characters of UTF-8 text, each as its own bytes; a broken sequence is taken a byte at a time.
std::vector<std::string> characters_of(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        std::size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (i + length > text.size()) length = 1;
        out.push_back(text.substr(i, length));
        i += length;
    }
    return out;
}

// Digits per probe: as many as K^digits stays within 2^62, so offsets and their sums fit a uint64_t.
std::size_t digits_for(std::uint64_t base) {
    std::size_t digits = 0;
    for (std::uint64_t span = 1; span <= (std::uint64_t{1} << 62) / base; span *= base) ++digits;
    return digits;
}

std::size_t common_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::size_t common = 0;
    while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
    return common;
}

}  // namespace

std::vector<std::string> StringAxis::candidates(const std::string& lo, const std::string& hi) {
    const auto lo_chars = characters_of(lo);
    const auto hi_chars = characters_of(hi);
    const std::size_t common = common_prefix(lo_chars, hi_chars);
    // Printable ASCII, and every character of the two ends after their common prefix, so that both can be
    // written as probes.
    std::vector<std::string> out;
    for (char c = '!'; c <= '~'; ++c) out.emplace_back(1, c);
    for (const auto* chars : {&lo_chars, &hi_chars})
        for (std::size_t i = common; i < chars->size(); ++i)
            if (std::find(out.begin(), out.end(), (*chars)[i]) == out.end()) out.push_back((*chars)[i]);
    return out;
}

std::optional<StringAxis> StringAxis::between(KeyIndex& index, const std::string& lo, const std::string& hi) {
    const auto characters = candidates(lo, hi);
    return from_ranks(lo, hi, characters, index.rank_leading_characters(characters));
}

std::optional<StringAxis> StringAxis::from_ranks(const std::string& lo, const std::string& hi,
                                                 const std::vector<std::string>& candidates,
                                                 const std::vector<std::size_t>& ranks) {
    if (ranks.size() != candidates.size()) return std::nullopt;
    const auto lo_chars = characters_of(lo);
    const auto hi_chars = characters_of(hi);
    const std::size_t common = common_prefix(lo_chars, hi_chars);
    StringAxis axis;
    std::map<std::string, std::size_t> rank_of;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        rank_of[candidates[i]] = ranks[i];
        if (ranks[i] >= axis.digits_.size()) axis.digits_.resize(ranks[i] + 1);
        // The first candidate of each rank writes it: ASCII where the rank has one.
        if (axis.digits_[ranks[i]].empty()) axis.digits_[ranks[i]] = candidates[i];
    }
    if (axis.digits_.size() < 2 || std::any_of(axis.digits_.begin(), axis.digits_.end(),
                                                [](const std::string& digit) { return digit.empty(); }))
        return std::nullopt;
    for (std::size_t i = 0; i < common; ++i) axis.prefix_ += lo_chars[i];
    const std::uint64_t base = axis.digits_.size();
    axis.length_ = digits_for(base);

    // An end's offset from the all-lowest probe: its characters after the prefix as digits, cut or
    // padded with the lowest digit to the probe length.
    const auto offset_of = [&](const std::vector<std::string>& chars) -> std::optional<std::uint64_t> {
        std::uint64_t offset = 0;
        for (std::size_t i = 0; i < axis.length_; ++i) {
            const std::size_t at = common + i;
            std::size_t digit = 0;
            if (at < chars.size()) {
                const auto found = rank_of.find(chars[at]);
                if (found == rank_of.end()) return std::nullopt;
                digit = found->second;
            }
            offset = offset * base + digit;
        }
        return offset;
    };
    const auto start = offset_of(lo_chars);
    const auto end = offset_of(hi_chars);
    if (!start || !end || *end <= *start) return std::nullopt;
    axis.start_ = *start;
    axis.width_ = *end - *start;
    return axis;
}

std::string StringAxis::at(std::uint64_t offset) const {
    std::uint64_t value = start_ + std::min(offset, width_);
    const std::uint64_t base = digits_.size();
    std::vector<std::size_t> digits(length_);
    for (std::size_t i = length_; i-- > 0; value /= base) digits[i] = value % base;
    // Trailing lowest digits add nothing a shorter probe does not say.
    std::size_t used = length_;
    while (used > 0 && digits[used - 1] == 0) --used;
    std::string probe = prefix_;
    for (std::size_t i = 0; i < used; ++i) probe += digits_[digits[i]];
    return probe;
}

}  // namespace rowpump
