#pragma once
// A text key's first column as a line of numbers, so that the estimated planner can cut it by arithmetic
// as it cuts an integer key. Offset n stands for a probe string: the common prefix of the key's lowest and
// highest values, then n written in base K, each digit one of K characters that the column's collation
// orders (the server ranks them; see KeyIndex::rank_leading_characters). Probes are never keys themselves:
// they are where the planner asks the server for row estimates and for the first real key at or after.
//
// For collations that compare character by character (the _bin and _general_ci families, and the
// Unicode ones on these characters), probes in offset order are in the collation's order, so the rows
// below a probe grow with its offset. Where a collation disagrees, ranges come out less even, never
// wrong: every comparison is still the server's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "partition/key_index.hpp"

namespace rowpump {

class StringAxis {
public:
    // The axis from the key's lowest value `lo` to its highest `hi` (both real keys, in the connection's
    // UTF-8); nullopt when their probes do not come out in order (or the column has no collation).
    static std::optional<StringAxis> between(KeyIndex& index, const std::string& lo, const std::string& hi);

    // The two steps of between(), apart for tests: the characters the server is asked to rank, and the
    // axis made from their ranks.
    static std::vector<std::string> candidates(const std::string& lo, const std::string& hi);
    static std::optional<StringAxis> from_ranks(const std::string& lo, const std::string& hi,
                                                const std::vector<std::string>& candidates,
                                                const std::vector<std::size_t>& ranks);

    std::uint64_t width() const { return width_; }
    std::string at(std::uint64_t offset) const;

private:
    StringAxis() = default;
    std::string prefix_;
    std::vector<std::string> digits_;  // one character per rank, lowest first
    std::size_t length_ = 0;           // digits per probe
    std::uint64_t start_ = 0;          // the lowest value's own offset from the all-lowest probe
    std::uint64_t width_ = 0;
};

}  // namespace rowpump
