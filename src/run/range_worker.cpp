#include "run/range_worker.hpp"

#include <chrono>
#include <mutex>
#include <thread>

#include "log.hpp"

namespace rowpump {

void wait_below_high_water(RangeSource& source, std::uint64_t high_water, const std::atomic<bool>& stop) {
    if (high_water == 0) return;
    bool logged = false;
    while (!stop.load()) {
        const auto ready = source.ready_count();
        if (!ready || *ready <= high_water) return;
        if (!logged) log().info("queue holds {} ready tasks (high water {}): pausing", *ready, high_water);
        logged = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

namespace {

std::string describe(const std::optional<KeyValue>& key, const char* none) { return key ? to_string(*key) : none; }

// True when the range was read to its end. `readers`: the worker's, over its one session.
bool read_range(const WorkerContext& context, RangeSource& source, RangeLease& lease, WorkerReaders& readers) {
    for (;;) {
        const std::unique_ptr<RangeReader> opened = readers.open(lease.range(), lease.resume_after());
        RangeReader& reader = *opened;
        bool shrunk = false;
        PipelineHooks hooks;
        // The sink's connection is the writer thread's; a held reader pings it only while no page is
        // being written, and a held writer pings it itself.
        std::mutex sink_use;
        const auto ping_sink = [&] {
            const std::lock_guard lock(sink_use);
            source.keep_alive();
        };
        hooks.between_pages = [&] {
            context.gate.before_read(context.stop, [&] {
                reader.keep_alive();
                ping_sink();
            });
            lease.between_pages(reader);
        };
        hooks.on_read = [&](std::size_t rows) { lease.on_read(rows); };
        hooks.write = [&](const EncodedPage& page) {
            context.rate.acquire(page.messages.size(), context.stop);
            {
                const std::lock_guard lock(sink_use);
                wait_below_high_water(source, context.spec.high_water, context.stop);
            }
            // After the rate's wait: a pause that came meanwhile holds this page too.
            const auto writing = context.gate.before_write(context.stop, ping_sink);
            const std::lock_guard lock(sink_use);
            const PageWrite written = lease.write(page);
            shrunk = written == PageWrite::shrunk;
            return written == PageWrite::written;
        };
        const StreamEnd end = stream_pages(reader, context.encoder, hooks, context.stop);
        // The pages read past the checkpoint were dropped unwritten: the part below the new bound is
        // read again, the part above it is the thief's.
        if (!shrunk) return end == StreamEnd::exhausted;
        log().debug("a split of the range left it ending before {}: reading on after {}",
                    describe(lease.range().hi, "the end"), describe(lease.resume_after(), "its start"));
    }
}

}  // namespace

void run_worker(const WorkerContext& context, RangeSource& source) {
    const auto started = std::chrono::steady_clock::now();
    auto busy_until = started;
    std::size_t ranges = 0;
    const std::unique_ptr<WorkerReaders> readers = context.connections.readers();
    while (auto lease = source.next()) {
        ++ranges;
        bool exhausted = false;
        try {
            exhausted = read_range(context, source, *lease, *readers);
        } catch (...) {
            lease->finish(false);
            throw;
        }
        lease->finish(exhausted);
        busy_until = std::chrono::steady_clock::now();
    }
    // How evenly stealing spread the work: until its last range ended, not until the whole job did (which
    // an idle worker waits for). bench/steal_balance.sh reads this line.
    log().debug("worker done after {:.3f} s: {} ranges read, the last one ending at {:.3f} s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), ranges,
                std::chrono::duration<double>(busy_until - started).count());
}

}  // namespace rowpump
