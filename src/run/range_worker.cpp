#include "run/range_worker.hpp"

#include <thread>

#include "log.hpp"
#include "mysql/connection.hpp"
#include "partition/midpoint.hpp"

namespace rowpump {

void wait_below_high_water(Sink& sink, std::uint64_t high_water, const std::atomic<bool>& stop) {
    if (high_water == 0) return;
    bool logged = false;
    while (!stop.load()) {
        const auto ready = sink.ready_count();
        if (!ready || *ready <= high_water) return;
        if (!logged) log().info("queue holds {} ready tasks (high water {}): pausing", *ready, high_water);
        logged = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

namespace {

class BoardWorker {
public:
    BoardWorker(const WorkerContext& context, RangeBoard& board)
        : context_(context),
          board_(board),
          sink_(make_sink(context.spec.sink)),
          snapshot_session_(context.snapshot ? context.snapshot->take() : nullptr) {}

    void run() {
        while (auto index = board_.acquire()) {
            bool completed = false;
            try {
                completed = read_range(*index);
            } catch (...) {
                board_.finish(*index, false);
                throw;
            }
            board_.finish(*index, completed);
        }
    }

private:
    bool read_range(std::size_t index) {
        BoardRange& shared = board_.at(index);
        PageReader reader = snapshot_session_ ? PageReader(snapshot_session_, context_.plan, shared.range)
                                              : PageReader(context_.spec.mysql, context_.plan, shared.range);
        PipelineHooks hooks;
        hooks.between_pages = [&] {
            context_.gate.between_pages(context_.stop, [&] { reader.keep_alive(); sink_->keep_alive(); });
            if (shared.split_requested.exchange(false)) split(index, shared, reader);
        };
        hooks.on_read = [&](std::size_t rows) { shared.rows_read += rows; };
        hooks.write = [&](const EncodedPage& page) {
            wait_below_high_water(*sink_, context_.spec.high_water, context_.stop);
            context_.rate.acquire(page.messages.size(), context_.stop);
            sink_->write(page.messages);
            board_.record_written(index, page.last_key, page.messages.size());
            return true;
        };
        return stream_pages(reader, context_.encoder, hooks, context_.stop) == StreamEnd::exhausted;
    }

    // Between two pages this worker knows exactly where its range stands: hand the upper half of what is
    // left to the board.
    void split(std::size_t index, BoardRange& shared, PageReader& reader) {
        if (!control_) control_.emplace(context_.spec.mysql);
        const std::uint64_t remaining = shared.remaining();
        // Before its first page a reader stands at its range's own (inclusive) start, not after a key.
        const bool started = reader.position().has_value();
        auto middle = find_midpoint(*control_, *context_.plan, started ? reader.position() : reader.range().lo,
                                    reader.range().hi, remaining, !started);
        if (!middle) {
            board_.refuse_split(index);
            return;
        }
        reader.set_upper_bound(*middle);
        board_.add_split(index, *middle, remaining / 2);
        log().debug("range {} split at {}", index, to_string(*middle));
    }

    const WorkerContext& context_;
    RangeBoard& board_;
    std::unique_ptr<Sink> sink_;
    std::optional<mysql::Connection> control_;  // for midpoint queries, opened at the first split
    std::shared_ptr<ReaderSession> snapshot_session_;  // --consistent-snapshot only
};

}  // namespace

void run_board_worker(const WorkerContext& context, RangeBoard& board) {
    BoardWorker worker(context, board);
    worker.run();
}

}  // namespace rowpump
