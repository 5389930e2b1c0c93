#pragma once
// The range source of a run without a job id: the in-memory range board. An idle worker asks the owner of
// the largest unread remainder to split it; the owner does so at its next page boundary, where it knows
// exactly which key it delivered last, and keeps reading the lower part.
#include <memory>
#include <optional>

#include "run/key_order.hpp"
#include "run/range_board.hpp"
#include "run/range_worker.hpp"

namespace rowpump {

class BoardSource final : public RangeSource {
public:
    BoardSource(const WorkerContext& context, RangeBoard& board);

    std::unique_ptr<RangeLease> next() override;
    std::optional<std::uint64_t> ready_count() override { return sink_->ready_count(); }
    void keep_alive() override { sink_->keep_alive(); }

    // Between two pages of the range at `index`: hands the upper half of what is left to the board.
    void split(std::size_t index, BoardRange& shared, RangeReader& reader);
    Sink& sink() { return *sink_; }
    RangeBoard& board() { return board_; }

private:
    RangeBoard& board_;
    std::unique_ptr<Sink> sink_;
    std::unique_ptr<KeyOrder> keys_;  // for midpoints; its connection opens at the first split
};

}  // namespace rowpump
