#pragma once
// The workers of a job without a job id: they take ranges from the in-memory board and split the
// largest remainder when one of them runs out of work.
#include <atomic>
#include <memory>

#include "run/page_pipeline.hpp"
#include "run/range_board.hpp"
#include "run/snapshot_sessions.hpp"
#include "run/throttle.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump {

struct WorkerContext {
    const JobSpec& spec;  // its sink spec already carries the priority lists
    std::shared_ptr<const ReadPlan> plan;
    const PageEncoder& encoder;
    RateLimiter& rate;
    const std::atomic<bool>& stop;
    SnapshotSessions* snapshot;  // --consistent-snapshot: each board worker reads through one of these
    ThrottleGate& gate;
};

// Waits while the sink holds more than high_water ready tasks (0: never waits).
void wait_below_high_water(Sink& sink, std::uint64_t high_water, const std::atomic<bool>& stop);

// Runs until the board has nothing left. Throws what the first failing page threw.
void run_board_worker(const WorkerContext& context, RangeBoard& board);

}  // namespace rowpump
