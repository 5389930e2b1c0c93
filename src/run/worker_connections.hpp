#pragma once
// What each worker of a run connects to: its readers, its control connection for split keys, and (without
// a job id) its sink. Workers open them through these factories, so the unit tests run the very same
// worker loop, pipeline and work stealing over fakes (tests/unit/run_fakes/).
#include <functional>
#include <memory>

#include "rowpump/job.hpp"
#include "rowpump/reader.hpp"
#include "rowpump/sink.hpp"
#include "run/key_order.hpp"
#include "run/range_reader.hpp"
#include "run/snapshot_sessions.hpp"

namespace rowpump {

struct WorkerConnections {
    // Called once by each worker as it starts.
    std::function<std::unique_ptr<WorkerReaders>()> readers;
    // Called once by each range source; the connection behind it opens at its first question.
    std::function<std::unique_ptr<KeyOrder>()> keys;
    // Called once by each board worker (a job's pages go through its ledger instead).
    std::function<std::unique_ptr<Sink>()> sink;
};

// A PageReader as the pipeline reads it (rowpump read streams one through stream_pages too).
std::unique_ptr<RangeReader> range_reader(PageReader reader);

// The real ones: PageReaders over one session per worker (one of `snapshot`'s when given, else opened for
// its first range), a Connector/C++ control connection, and make_sink(spec.sink).
WorkerConnections mysql_worker_connections(const JobSpec& spec, std::shared_ptr<const ReadPlan> plan,
                                           SnapshotSessions* snapshot);

}  // namespace rowpump
