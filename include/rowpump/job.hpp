#pragma once
// A whole job: read a table in N key ranges with W parallel workers and stream every row into a sink.
// The CLI's backfill and the YAML runner build a JobSpec; a program can build one in code.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/key.hpp"
#include "rowpump/options.hpp"
#include "rowpump/partition.hpp"
#include "rowpump/reader.hpp"
#include "rowpump/sink.hpp"
#include "rowpump/throttle.hpp"

namespace ROWPUMP_EXPORT rowpump {

// Which list (or MySQL priority) a row goes to: by ranges of a numeric column's value.
struct PriorityLevel {
    std::string name;   // "high": the Redis list <queue>:p:high
    double min = 0;     // rows whose value is >= min go here; levels are tried highest first
};

struct RouteSpec {
    std::string priority_column;        // empty: no priority routing
    std::vector<PriorityLevel> levels;  // highest first; a row below every min goes to the last level
    std::chrono::milliseconds delay{0}; // > 0: every row is a delayed task due this long after it is written
    std::string due_column;             // non-empty: a DATETIME/TIMESTAMP column holding each row's due time
};

struct JobSpec {
    MySqlOptions mysql;
    ReadSpec read;
    std::size_t partitions = 0;  // 0: as many as workers
    PartitionStrategy partition_strategy = PartitionStrategy::balanced;
    std::size_t workers = 0;     // 0: the number of cores
    SinkSpec sink;
    Format format = Format::json;
    TaskSpec task;  // --format sidekiq or celery: the job class or task name (its queue is the sink's)
    PayloadOptions payload;       // --template, --big-numbers
    RouteSpec route;
    double rate = 0;              // rows per second over all workers; 0: no cap
    std::uint64_t high_water = 0; // pause reading while the queue holds more ready tasks; 0: never
    ThrottleSpec throttle;        // replica lag, server load, pause file, HTTP control (docs/throttling.md)

    // Exactly-once and resume: with a job id, each range's progress is stored in the sink's own store
    // (MySQL tables or Redis keys), written in the same atomic step as the rows it covers. Several
    // processes given the same job id share the work by leasing ranges.
    std::string job_id;            // empty: at-least-once, no state kept
    std::string state_prefix = "rowpump:job:";  // Redis: the job's keys are <prefix><job id>:meta, ...
    bool resume = false;           // continue a job that was started before (required to reuse a job id)
    // The last range stops at the key's maximum when the run starts; with follow, rows added above it
    // are read afterwards, pass after pass, until a pass finds none. Not with a job id (yet).
    bool follow = false;
    std::chrono::seconds lease_timeout{60};  // a live owner that makes no progress for this long loses its range
    // Every worker reads one snapshot of the table, taken by all of them at once under a brief
    // LOCK TABLES ... READ (docs/tls-and-session.md: what it costs). A lost reader connection fails the
    // run, since its snapshot cannot be taken again. Not with a job id or follow.
    bool consistent_snapshot = false;
    // The command line's progress lines when stderr is not a terminal: one every this many seconds (0:
    // none). The library calls JobControl::on_progress about once a second whatever this says.
    double progress_interval_seconds = 10;
};

// Loads a YAML job file. `overrides` are "path=value" pairs (source.page_size=500) applied before
// validation; ${VAR} in any value is replaced by the environment variable. Everything is validated
// before any connection is opened; errors are ConfigError with the file, line and column.
JobSpec load_job(const std::string& path, const std::vector<std::string>& overrides = {});

// Without a job id: a range this run read. With one: one of the job's ranges, as its store holds it
// after this run, so rows_written and last_written count every run and process of the job.
struct RangeSummary {
    KeyRange range;                      // as finally read (work stealing may have shortened it)
    std::uint64_t rows_read = 0;         // by this run
    std::uint64_t rows_written = 0;
    std::uint64_t estimated_rows = 0;    // the plan's estimate for the range
    std::optional<KeyValue> last_written;// the key of the last row written
    bool finished = false;
};

struct JobSummary {
    std::vector<RangeSummary> ranges;
    std::uint64_t rows_read = 0;
    std::uint64_t rows_written = 0;
    std::uint64_t estimated_rows = 0;
    std::size_t steals = 0;       // ranges split at run time to keep idle workers busy
    double seconds = 0;
    bool interrupted = false;     // a stop was requested before every range finished
    std::uint64_t rows_done_before = 0;  // with --resume: rows written by earlier runs of the job
    bool already_finished = false;       // with --resume: the job had finished; nothing was done
    std::string job_id;  // empty without one
    // With a job id: the rows the job holds now, written by this run, earlier runs and other processes.
    std::uint64_t job_rows_written = 0;
};

struct JobProgress {
    std::uint64_t rows_written = 0;    // with a job id: by every run and process of the job
    std::uint64_t estimated_rows = 0;
    double seconds = 0;
    std::uint64_t rows_done_before = 0;  // with a job id: written before this run started (not in its rate)
    std::string throttle = {};  // why reading is held ("throttled: replica ... lag 3.2 s > 1.5 s"); empty: it is not
};

struct JobControl {
    // Called about once a second from a separate thread.
    std::function<void(const JobProgress&)> on_progress;
    // When it becomes true, workers finish the pages they hold and stop; the summary says where. A write
    // that waits on a Redis server that stopped answering gives up about a second later: run_job then
    // throws Interrupted (with a job id, a resume continues from the last checkpoint).
    const std::atomic<bool>* stop = nullptr;
};

// Plans, partitions and runs the job. Bad input throws UsageError before any row is written; a failure
// during the run throws after the other workers stopped (their rows written are in the queue).
JobSummary run_job(const JobSpec& spec, const JobControl& control = {});

}  // namespace rowpump
