#include "run/board_source.hpp"

#include "log.hpp"

namespace rowpump {

namespace {

class BoardLease final : public RangeLease {
public:
    BoardLease(BoardSource& source, std::size_t index)
        : source_(source), index_(index), shared_(source.board().at(index)) {}

    // Only this lease's worker changes its range (when it splits), so reading it needs no lock.
    const KeyRange& range() const override { return shared_.range; }
    // A board range is never read again: its owner splits it between pages, at its own position.
    const std::optional<KeyValue>& resume_after() const override { return start_; }

    void between_pages(RangeReader& reader) override {
        if (shared_.split_requested.exchange(false)) source_.split(index_, shared_, reader);
    }
    void on_read(std::size_t rows) override { shared_.rows_read += rows; }
    PageWrite write(const EncodedPage& page) override {
        source_.sink().write(page.messages);
        source_.board().record_written(index_, page.last_key, page.messages.size());
        return PageWrite::written;
    }
    void finish(bool exhausted) override { source_.board().finish(index_, exhausted); }

private:
    BoardSource& source_;
    std::size_t index_;
    BoardRange& shared_;
    const std::optional<KeyValue> start_;
};

}  // namespace

BoardSource::BoardSource(const WorkerContext& context, RangeBoard& board)
    : board_(board), sink_(context.connections.sink()), keys_(context.connections.keys()) {}

std::unique_ptr<RangeLease> BoardSource::next() {
    const auto index = board_.acquire();
    if (!index) return nullptr;
    return std::make_unique<BoardLease>(*this, *index);
}

void BoardSource::split(std::size_t index, BoardRange& shared, RangeReader& reader) {
    const std::uint64_t remaining = shared.remaining();
    // Before its first page a reader stands at its range's own (inclusive) start, not after a key.
    const bool started = reader.position().has_value();
    auto middle = keys_->midpoint(started ? reader.position() : reader.range().lo, reader.range().hi, remaining,
                                  !started);
    if (!middle) {
        board_.refuse_split(index);
        return;
    }
    reader.set_upper_bound(*middle);
    board_.add_split(index, *middle, remaining / 2);
    log().debug("range {} split at {}", index, to_string(*middle));
}

}  // namespace rowpump
