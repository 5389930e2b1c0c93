#pragma once
// Where work stealing asks about keys: a split key between two keys, and whether one key comes before
// another. Keys are only ever ordered by the source's server, under their columns' own collation and type
// (partition/midpoint.hpp); the unit tests order integers in memory.
#include <cstdint>
#include <optional>

#include "rowpump/key.hpp"

namespace rowpump {

class KeyOrder {
public:
    virtual ~KeyOrder() = default;
    // find_midpoint's contract (partition/midpoint.hpp): a key strictly after `after` (or at or after it,
    // with after_inclusive) and strictly before `before` that halves the rows between, else nullopt.
    virtual std::optional<KeyValue> midpoint(const std::optional<KeyValue>& after, const std::optional<KeyValue>& before,
                                             std::uint64_t remaining_rows_estimate, bool after_inclusive) = 0;
    // key_before's contract: a row lies in [position, bound).
    virtual bool before(const KeyValue& position, const KeyValue& bound) = 0;
};

}  // namespace rowpump
