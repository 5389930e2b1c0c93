#pragma once
// "Did you mean" hints for misspelt names in job files.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump::job {

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions that turn
// `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name`, when it is close enough to be a likely typo (at most two edits, and
// fewer edits than the shorter of the two names has characters); nullopt otherwise.
std::optional<std::string> closest_match(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace rowpump::job
