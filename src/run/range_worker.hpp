#pragma once
// The worker loop of every run: take a range from the worker's source, stream its pages through the
// pipeline, commit each through the range's lease, and read again from the checkpoint when another worker
// split the range meanwhile.
#include <atomic>
#include <memory>

#include "run/page_pipeline.hpp"
#include "run/range_source.hpp"
#include "run/worker_connections.hpp"
#include "throttle/rate_limiter.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump {

struct WorkerContext {
    const JobSpec& spec;  // its sink spec already carries the priority lists
    std::shared_ptr<const ReadPlan> plan;
    const PageEncoder& encoder;
    RateLimiter& rate;
    const std::atomic<bool>& stop;
    const WorkerConnections& connections;  // what each worker opens: readers, split keys, sink
    ThrottleGate& gate;
};

// Waits while the source's queue holds more than high_water ready tasks (0: never waits).
void wait_below_high_water(RangeSource& source, std::uint64_t high_water, const std::atomic<bool>& stop);

// Runs until the source has nothing left. Throws what the first failing page threw.
void run_worker(const WorkerContext& context, RangeSource& source);

}  // namespace rowpump
