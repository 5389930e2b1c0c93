#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "backend/derived_fields.hpp"
#include "backend/redis/redis_backend.hpp"
#include "backend/registry/registry.hpp"
#include "checkpoint/job_store.hpp"
#include "config/option_checks.hpp"
#include "log.hpp"
#include "paging/page_sql.hpp"
#include "route/router.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "run/board_source.hpp"
#include "run/job_plan.hpp"
#include "run/job_source.hpp"
#include "run/range_worker.hpp"
#include "run/run_workers.hpp"
#include "run/worker_connections.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump {

namespace {

using config::OptionId;

// A BullMQ job is a set of keys, not a payload: it is written to one Redis server, and its prefix is for it alone.
void check_bullmq_sink(const JobSpec& spec, const Backend& backend) {
    if (spec.format != Format::bullmq) {
        if (spec.sink.redis_only.bullmq_prefix != RedisSinkOptions{}.bullmq_prefix)
            throw config::OptionError({OptionId::bullmq_prefix, " is only read by ", OptionId::format,
                                       " bullmq (the format is " + format_name(spec.format) + "): remove it"});
        return;
    }
    if (&backend != &redis_backend())
        throw config::OptionError({OptionId::format, " bullmq writes BullMQ's Redis keys (a hash a job, its id in "
                                   "wait or delayed, events), and " + redact_url(spec.sink.uri) + " is " +
                                   std::string(backend.what()) + ": use a redis:// sink"});
    const std::string& prefix = spec.sink.redis_only.bullmq_prefix;
    if (prefix.empty() || prefix.find_first_of(" \t\r\n") != std::string::npos)
        throw config::OptionError({OptionId::bullmq_prefix, " '" + prefix + "': give BullMQ's prefix, e.g. bull"});
}

// Sidekiq and Celery jobs are written where their workers read them: a Redis sink, or stdout and files to
// look at them. A MySQL queue table has no such worker.
void check_worker_format(const JobSpec& spec) {
    check_task_spec(spec.format, spec.task);
    const Backend& backend = backend_for(spec.sink);
    check_bullmq_sink(spec, backend);
    if (queue_layout(spec.format) == QueueLayout::rowpump) return;
    const std::string format = format_name(spec.format);
    if (!backend.traits().worker_formats)
        throw config::OptionError({OptionId::format, " " + format + " writes " + format + "'s Redis keys, and " +
                                                         redact_url(spec.sink.uri) + " is " +
                                                         std::string(backend.what()) +
                                                         ": use a redis:// sink (or stdout or file:PATH to look at "
                                                         "the jobs)"});
    config::check_priority_fits_format(format, !spec.route.priority_column.empty() || !spec.route.levels.empty());
}

// The worker formats' queue defaults to the frameworks' own ("default", "celery"). Only on run_job's own
// copy, and only where check_derived_fields found the caller's fields unset or in agreement.
void apply_worker_format(JobSpec& spec) {
    spec.sink.layout = queue_layout(spec.format);
    if (spec.sink.queue.empty()) spec.sink.queue = default_queue(spec.format);
    spec.task.queue = spec.sink.queue;
    spec.sink.redis_only.celery_priority = spec.task.celery.priority.value_or(0);
    spec.sink.redis_only.celery_priority_per_row = !spec.task.celery.priority_column.empty();
}

// Key names and the state prefix, refused as the sink and the job store would refuse them, before anything
// connects.
void check_key_names(const JobSpec& spec) {
    SinkSpec sink = spec.sink;
    // BullMQ's keys are checked by BullMQ's writer (a queue name without ':'), not the lists' push plan.
    if (spec.format == Format::bullmq) sink.layout = QueueLayout::bullmq;
    const Backend& backend = backend_for(sink);
    config::check_state_prefix_applies(spec);
    config::check_redis_names_apply(sink, backend.traits().redis_keys);
    if (!backend.traits().redis_keys) return;
    for (const auto& level : spec.route.levels) sink.priority_lists.push_back(level.name);
    backend.check_key_names(sink, spec.job_id.empty() ? nullptr : &spec.state_prefix);
}

void check_spec(const JobSpec& spec) {
    if (spec.rate < 0)
        throw config::OptionError({OptionId::rate, " must be positive (rows per second), or 0 for no cap"});
    if (spec.workers > 256)
        throw config::OptionError({OptionId::workers, ": at most 256, got " + std::to_string(spec.workers)});
    if (!spec.job_id.empty() && spec.lease_timeout.count() <= 0)
        throw config::OptionError({OptionId::lease_timeout, " must be positive"});
    config::check_job_options(spec);
    config::check_stream_route(spec);
    config::check_expiry_after_delay(spec);
    check_worker_format(spec);
    std::vector<std::string> levels;
    for (const auto& level : spec.route.levels) levels.push_back(level.name);
    check_derived_fields(spec.sink, spec.format, spec.task, &levels);
    config::check_overwrite_applies(spec.sink, backend_for(spec.sink).traits().replaces_files);
    config::check_redis_wait_applies(spec.sink, backend_for(spec.sink).traits().waits_for_replicas);
    config::check_shards_apply(spec.sink.redis_only.shards, spec.sink.uri, backend_for(spec.sink).traits().shards);
    check_payload_options(spec.format, spec.payload);
    check_key_names(spec);
}

// Reports progress once a second and turns the caller's stop request into the workers' halt flag.
class Watcher {
public:
    Watcher(const JobControl& control, std::atomic<bool>& halt, std::function<std::uint64_t()> written,
            std::uint64_t estimated, std::function<void()> wake, std::uint64_t done_before = 0)
        : started_(std::chrono::steady_clock::now()), thread_([=, this, &control, &halt] {
              auto next_report = started_;
              std::unique_lock lock(mutex_);
              while (!done_) {
                  if (control.stop && control.stop->load() && !halt.exchange(true) && wake) wake();
                  const auto now = std::chrono::steady_clock::now();
                  if (control.on_progress && now >= next_report) {
                      control.on_progress({written(), estimated, seconds(), done_before});
                      next_report = now + std::chrono::seconds(1);
                  }
                  // A stop request comes from a signal handler, which can only set a flag: it is looked
                  // for every 50 ms. The end of the run wakes the wait at once (a sleep here added up to
                  // 50 ms to every run).
                  finished_.wait_for(lock, std::chrono::milliseconds(50), [this] { return done_; });
              }
          }) {}
    ~Watcher() {
        {
            const std::lock_guard lock(mutex_);
            done_ = true;
        }
        finished_.notify_one();
        thread_.join();
    }
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }

private:
    std::chrono::steady_clock::time_point started_;
    std::mutex mutex_;
    std::condition_variable finished_;
    bool done_ = false;  // guarded by mutex_
    std::thread thread_;  // last: it starts once the members it uses exist
};

struct Prepared {
    std::shared_ptr<const ReadPlan> plan;
    std::unique_ptr<Router> router;
    JobSpec spec;  // run_job's copy, with the fields derived from the format and the route filled in
    std::unique_ptr<RowEncoder> encoder;
    std::unique_ptr<ThrottleGate> gate;  // also with no throttle: then it is always open
};

Prepared prepare(const JobSpec& spec, const JobControl& control) {
    check_spec(spec);
    Prepared prepared;
    // First: a replica that cannot be reached or an --http address that cannot be bound fails before the
    // table is even looked at.
    prepared.gate = std::make_unique<ThrottleGate>(spec.throttle, spec.mysql, spec.rate);
    prepared.spec = spec;
    // A stop must also end a wait on a Redis server that stopped answering (the sink's, the job store's).
    if (control.stop) prepared.spec.sink.stop = control.stop;
    apply_worker_format(prepared.spec);
    ReadPlan plan = plan_job_read(spec);
    plan.spec.page_size_override = prepared.gate->page_size_override();  // POST /page-size
    prepared.plan = std::make_shared<const ReadPlan>(std::move(plan));
    prepared.router = std::make_unique<Router>(spec.route, spec.task.celery.priority_column, *prepared.plan);
    const PageSql sql(*prepared.plan);
    std::vector<std::string> key_names;
    for (const Column& key : sql.key_columns(Pass::main)) key_names.push_back(key.name);
    prepared.router->name_rows_by(sql.key_positions(Pass::main), std::move(key_names));
    prepared.spec.sink.priority_lists.clear();
    for (const auto& level : spec.route.levels) prepared.spec.sink.priority_lists.push_back(level.name);
    prepared.encoder = make_encoder(spec.format, prepared.plan->columns, prepared.spec.task, spec.payload);
    return prepared;
}

// One pass of the workers over `partitions`, stealing between them.
JobSummary run_board(const Prepared& prepared, const JobControl& control, std::size_t workers,
                     const PartitionPlan& partitions) {
    std::atomic<bool> halt{false};
    // OFFSET pages count from the range start, so an OFFSET range cannot be split while it is read.
    RangeBoard board(partitions, prepared.plan->spec.strategy != PagingStrategy::offset, halt);
    const PageEncoder encoder(*prepared.encoder, *prepared.router);
    // Taken after planning: the ranges cover every key, and the last one is open above, so the workers
    // read exactly the snapshot's rows however the table changed in between.
    std::optional<SnapshotSessions> snapshot;
    if (prepared.spec.consistent_snapshot)
        snapshot.emplace(open_snapshot_sessions(prepared.spec.mysql, *prepared.plan, workers));
    const WorkerConnections connections =
        mysql_worker_connections(prepared.spec, prepared.plan, snapshot ? &*snapshot : nullptr);
    const WorkerContext context{prepared.spec, prepared.plan, encoder, prepared.gate->rate(), halt, connections,
                                *prepared.gate};
    double seconds = 0;
    {
        Watcher watcher(control, halt, [&] { return board.rows_written(); }, partitions.estimated_rows,
                        [&] { board.wake_all(); });
        const auto pass = prepared.gate->attach(halt, [&] { board.wake_all(); }, [&] {
            return RunView{{board.rows_written(), partitions.estimated_rows, watcher.seconds()}, board.summary().ranges,
                           board.activity()};
        });
        run_workers(workers, halt, [&] { board.wake_all(); }, [&] {
            BoardSource source(context, board);
            run_worker(context, source);
        });
        seconds = watcher.seconds();
    }
    JobSummary summary = board.summary();
    summary.estimated_rows = partitions.estimated_rows;
    summary.seconds = seconds;
    summary.interrupted = std::any_of(summary.ranges.begin(), summary.ranges.end(),
                                      [](const RangeSummary& range) { return !range.finished; });
    return summary;
}

void add_pass(JobSummary& summary, JobSummary pass) {
    for (auto& range : pass.ranges) summary.ranges.push_back(std::move(range));
    summary.rows_read += pass.rows_read;
    summary.rows_written += pass.rows_written;
    summary.estimated_rows += pass.estimated_rows;
    summary.steals += pass.steals;
    summary.seconds += pass.seconds;
    summary.interrupted = pass.interrupted;
}

JobSummary run_without_job_id(const Prepared& prepared, const JobControl& control, std::size_t workers) {
    check_sink(prepared.spec.sink);  // fails here, before any row is read, when the sink is unusable
    PartitionPlan partitions = plan_job_partitions(prepared.spec, *prepared.plan, workers);
    log().info("{} rows estimated in {} ranges of {}, {} workers; {}", partitions.estimated_rows,
               partitions.partitions.size(), prepared.plan->table.quoted_name(), workers, describe_planning(partitions));
    if (prepared.spec.consistent_snapshot) {
        // The snapshot bounds the table: a frozen bound from planning would only drop the rows added
        // between planning and the snapshot.
        partitions.partitions.back().range.hi.reset();
        partitions.frozen_upper_bound.reset();
    }
    JobSummary summary = run_board(prepared, control, workers, partitions);
    // --follow: the rows added above the bound while a pass ran, until a pass finds none.
    while (prepared.spec.follow && !summary.interrupted && partitions.frozen_upper_bound &&
           !(control.stop && control.stop->load())) {
        auto more = plan_rows_above(prepared.spec.mysql, *prepared.plan, *partitions.frozen_upper_bound);
        if (!more) break;
        log().info("{}: reading the rows added above key {} during the run, about {}",
                   config::option(OptionId::follow).cli, to_string(*partitions.frozen_upper_bound), more->estimated_rows);
        partitions = std::move(*more);
        add_pass(summary, run_board(prepared, control, workers, partitions));
    }
    return summary;
}

JobState open_or_create(JobStore& store, const JobDefinition& definition, const Prepared& prepared,
                        std::size_t workers) {
    JobState state = store.state();
    if (!state.exists) {
        if (prepared.spec.resume)
            throw config::OptionError({"there is no job '" + definition.job_id + "' to resume in " +
                                           redact_url(prepared.spec.sink.uri) + ": run it without ",
                                       OptionId::resume, " to start it"});
        const PartitionPlan partitions = plan_job_partitions(prepared.spec, *prepared.plan, workers);
        state = store.create(partitions.partitions);
    }
    if (state.fingerprint != definition.fingerprint)
        throw UsageError("job '" + definition.job_id + "' was started as: " + state.description +
                         "; this run is: " + definition.description +
                         ". Resume it with its original definition, or choose a new job id");
    return state;
}

JobSummary run_with_job_id(const Prepared& prepared, const JobControl& control, std::size_t workers) {
    const JobDefinition definition = define_job(prepared.spec, *prepared.plan);
    auto store = open_job_store(prepared.spec.sink, definition);
    const JobState before = open_or_create(*store, definition, prepared, workers);
    JobSummary summary;
    summary.job_id = definition.job_id;
    summary.rows_done_before = before.rows_written;
    if (before.finished()) {
        log().info("job '{}' already finished: {} rows written in {} ranges", definition.job_id, before.rows_written,
                   before.ranges);
        summary.already_finished = true;
        summary.job_rows_written = before.rows_written;
        summary.estimated_rows = before.estimated_rows;
        return summary;
    }
    log().info("job '{}': {} of {} ranges done, {} rows already written; {} workers", definition.job_id,
               before.ranges_done, before.ranges, before.rows_written, workers);

    std::atomic<bool> halt{false};
    std::mutex store_mutex;
    LedgerReport report;
    const PageEncoder encoder(*prepared.encoder, *prepared.router);
    const WorkerConnections connections = mysql_worker_connections(prepared.spec, prepared.plan, nullptr);
    const WorkerContext context{prepared.spec, prepared.plan, encoder, prepared.gate->rate(), halt, connections,
                                *prepared.gate};
    // Progress counts the whole job: what earlier runs and other processes wrote is read from the store,
    // when no worker is using its connection; in between, this process's own rows move it on.
    std::uint64_t job_rows_seen = before.rows_written;
    std::uint64_t own_rows_then = 0;
    const auto job_rows_written = [&]() -> std::uint64_t {
        std::unique_lock lock(store_mutex, std::try_to_lock);
        if (lock.owns_lock()) {
            try {
                const std::uint64_t own = report.rows_written();
                job_rows_seen = store->state().rows_written;
                own_rows_then = own;
            } catch (const Error& error) {
                log().debug("progress: cannot read the job's state: {}", error.what());
            }
        }
        return job_rows_seen + (report.rows_written() - own_rows_then);
    };
    // /status: the job's ranges as the store last showed them (read when no worker uses its connection).
    std::vector<RangeSummary> job_ranges;
    const auto job_view = [&](double seconds) {
        if (std::unique_lock lock(store_mutex, std::try_to_lock); lock.owns_lock()) {
            try {
                job_ranges = report.summarize(store->state());
            } catch (const Error& error) {
                log().debug("status: cannot read the job's state: {}", error.what());
            }
        }
        RunView view{{0, before.estimated_rows, seconds, before.rows_written}, job_ranges, {}};
        for (const auto& range : job_ranges) view.progress.rows_written += range.rows_written;
        return view;
    };
    {
        Watcher watcher(control, halt, job_rows_written, before.estimated_rows, [&] { report.stop_waits(); },
                        before.rows_written);
        const auto pass = prepared.gate->attach(halt, nullptr, [&] { return job_view(watcher.seconds()); });
        run_workers(workers, halt, [&] { report.stop_waits(); }, [&] {
            JobSource source(context, *store, store_mutex, report);
            run_worker(context, source);
        });
        summary.seconds = watcher.seconds();
    }
    const JobState after = store->state();
    summary.ranges = report.summarize(after);
    for (const auto& range : summary.ranges) summary.rows_read += range.rows_read;
    summary.rows_written = report.rows_written();
    summary.steals = report.splits();
    summary.job_rows_written = after.rows_written;
    summary.estimated_rows = after.estimated_rows;
    summary.interrupted = !after.finished();
    return summary;
}

}  // namespace

JobSummary run_job(const JobSpec& spec, const JobControl& control) {
    const Prepared prepared = prepare(spec, control);
    const std::size_t workers = worker_count(spec);
    JobControl shown = control;  // progress also says when and why reading is held
    if (control.on_progress)
        shown.on_progress = [&](JobProgress progress) {
            progress.throttle = prepared.gate->describe();
            control.on_progress(progress);
        };
    JobSummary summary = spec.job_id.empty() ? run_without_job_id(prepared, shown, workers)
                                             : run_with_job_id(prepared, shown, workers);
    if (control.on_progress)
        control.on_progress({spec.job_id.empty() ? summary.rows_written : summary.job_rows_written,
                             summary.estimated_rows, summary.seconds, summary.rows_done_before});
    return summary;
}

}  // namespace rowpump
