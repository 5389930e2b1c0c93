// run_consumers (rowpump/consumer.hpp): checks the options, opens one connection per worker and one for
// the maintenance, and runs them all on the backfills' worker pool (run/run_workers.hpp), so the first
// failure of any stops the others, as in a backfill.
#include <atomic>
#include <exception>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "backend/queue_source.hpp"
#include "backend/registry/registry.hpp"
#include "consume/consumer_run.hpp"
#include "log.hpp"
#include "run/run_workers.hpp"

namespace rowpump {

namespace consume {

ConsumerReport ConsumerRun::report() const {
    const metrics::OutcomeCounts handled = outcomes.counts();
    ConsumerReport report;
    report.done = handled.done;
    report.failed = handled.failed();
    report.retried = handled.retried;
    report.dead = handled.dead + reaped_dead.load();
    report.stale = handled.stale;
    report.handed_back = handed_back.load();
    report.drained = options.until_empty && drained_workers.load() == options.workers;
    report.delayed_left = delayed_left.load();
    report.stopped = stop_requested();
    return report;
}

}  // namespace consume

namespace {

using std::chrono::milliseconds;

void check(const ConsumerOptions& options) {
    if (options.workers == 0) throw UsageError("consumers need at least 1 worker");
    if (options.batch == 0) throw UsageError("consumers need a batch of at least 1 task");
    if (options.wait <= milliseconds(0))
        throw UsageError("ConsumerOptions::wait must be more than 0: a worker would ask the queue for tasks without a pause");
    if (options.reap_interval < milliseconds(0) || options.heartbeat_timeout < milliseconds(0))
        throw UsageError("ConsumerOptions::reap_interval and ::heartbeat_timeout cannot be negative");
}

struct Connections {
    std::vector<std::unique_ptr<QueueConsumer>> consumers;
    std::unique_ptr<QueueMaintainer> maintainer;
};

Connections open_connections(const Backend& backend, const ConsumerOptions& options) {
    Connections opened;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < options.workers; ++i) {
        opened.consumers.push_back(backend.open_consumer(options, i));
        names.push_back(opened.consumers.back()->name());
    }
    opened.maintainer = backend.open_maintainer(options, std::move(names));
    return opened;
}

// A consumer that leaves cleanly is forgotten at once (Redis: its heartbeat goes).
void sign_off(const std::vector<std::unique_ptr<QueueConsumer>>& consumers) {
    for (const auto& consumer : consumers) {
        try {
            consumer->leave();
        } catch (const Error& error) {
            log().warn("cannot sign off consumer {}: {}", consumer->name(), error.what());
        }
    }
}

template <class Handler>
ConsumerReport run_all(const ConsumerOptions& given, const Handler& handler) {
    if (given.source.url.empty() && std::holds_alternative<std::monostate>(given.source.connection))
        throw UsageError("consumers need a queue: set ConsumerOptions::source (a mysql://, mariadb:// or redis:// URL)");
    // The registry picks the backend by the source's URL (or its typed options), and types the source once
    // for every connection of the run.
    const Backend& backend = backend_for(given.source);
    ConsumerOptions options = given;
    options.source = typed_source(given.source);
    check(options);
    backend.check_consumers(options);
    Connections connections = open_connections(backend, options);
    const std::string& queue = options.source.queue;
    log().info("consuming queue {} from {}: {} worker(s), batch {}{}", queue, redacted(options.source),
               options.workers, options.batch, options.until_empty ? ", until it is empty" : "");

    consume::ConsumerRun run(options, handler, queue, options.retry);
    std::atomic<std::size_t> next_slot{0};
    std::atomic<std::size_t> workers_running{options.workers};
    std::exception_ptr failure;
    try {
        // One slot more than the workers: the maintenance, which stops once the last worker has.
        run_workers(options.workers + 1, run.halt, {}, [&] {
            const std::size_t slot = next_slot.fetch_add(1);
            if (slot == options.workers) return consume::maintain(*connections.maintainer, run, workers_running);
            struct Running {
                std::atomic<std::size_t>& count;
                ~Running() { count.fetch_sub(1); }
            } running{workers_running};
            consume::work(*connections.consumers[slot], run);
        });
    } catch (...) {
        failure = std::current_exception();
    }
    // After a failure, no sign-off: when the server is what failed, it would only wait out another retry
    // budget; a consumer that did not sign off is forgotten by the next reap, with nothing to recover.
    if (!failure) sign_off(connections.consumers);
    const ConsumerReport report = run.report();
    if (options.on_finished) options.on_finished(report);
    if (failure) std::rethrow_exception(failure);
    return report;
}

}  // namespace

ConsumerReport run_consumers(const ConsumerOptions& options, const TaskHandler& handler) {
    if (!handler) throw UsageError("run_consumers needs a handler");
    return run_all(options, handler);
}

ConsumerReport run_batch_consumers(const ConsumerOptions& options, const BatchHandler& handler) {
    if (!handler) throw UsageError("run_batch_consumers needs a handler");
    return run_all(options, handler);
}

}  // namespace rowpump
