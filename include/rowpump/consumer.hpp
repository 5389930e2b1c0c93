#pragma once
// Running consumers in a program: W workers claim tasks from a queue (a MySQL queue table or a Redis
// queue, named by URL as a sink is), hand each to a handler, and acknowledge, retry or bury it by what the handler returns. It is the loop of
// `rowpump queue consume`, which runs a command per task through this same function.
//
// Around the handler, run_consumers keeps the claims alive (MySQL: renews them while a task runs; Redis:
// heartbeats), takes back the tasks of consumers that died or stalled (the reaper), moves due delayed
// tasks and retries back to the ready list (Redis), and with until_empty stops once the queue is drained.
// Delivery is at least once (docs/DESIGN.md, "Queues"): a handler must be idempotent.
// Like every public header, C++17 is enough to include it.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "rowpump/queue.hpp"

namespace ROWPUMP_EXPORT rowpump {

// The task a handler is given. The views are valid during the call only.
struct TaskContext {
    std::string_view queue;    // the queue table's or the Redis queue's name
    std::uint64_t id = 0;      // MySQL: the row id; Redis: 0 (a Redis task is its payload)
    int attempt = 1;           // 1 on the first delivery; more than 1: the task may have run before
    std::string_view payload;
    // Keeps the task's claim alive: a handler that may run longer than a third of claim_timeout (MySQL)
    // calls it now and then, or the reaper takes the task for a lost one. Cheap: it renews at most once
    // per third of the timeout. Redis consumers need not call it (their heartbeats run on their own).
    std::function<void()> heartbeat;
};

// What became of a task, as the handler decides. An exception thrown by the handler is fail(what()).
struct TaskResult {
    enum class Kind {
        ok,     // acknowledged: done
        retry,  // a failure, run again after `delay` (0: at once); dead once it reaches max attempts
        fail,   // a failure, run again after the queue's retry backoff; dead once it reaches max attempts
        dead,   // given up at once, whatever its attempts (MySQL status 'dead', Redis Q:dead)
    };
    Kind kind = Kind::ok;
    std::chrono::milliseconds delay{0};  // retry only
    std::string reason;                  // MySQL keeps it in last_error; both log it

    static TaskResult ok() { return {}; }
    static TaskResult retry(std::chrono::milliseconds delay, std::string reason = "its handler asked for a retry") {
        return {Kind::retry, delay, std::move(reason)};
    }
    static TaskResult fail(std::string reason) { return {Kind::fail, {}, std::move(reason)}; }
    static TaskResult dead(std::string reason) { return {Kind::dead, {}, std::move(reason)}; }
};

// Called on several worker threads at once: it must be safe to call concurrently.
using TaskHandler = std::function<TaskResult(const TaskContext&)>;
// A handler of the tasks a worker claimed together (up to ConsumerOptions::batch): one result per task, in
// the order given; fewer or more fail the whole batch. For handlers that pipeline many tasks (a process fed
// tasks on a pipe) or act on them in bulk. Also called on several threads at once.
using BatchHandler = std::function<std::vector<TaskResult>(const std::vector<TaskContext>&)>;

// Thrown by a handler that cannot work at all (its program is missing, its own service is gone): unlike
// other exceptions it fails no task but stops the run, as a failure of the queue does; run_consumers then
// throws it. The task in hand stays claimed until the reaper takes it back.
class ConsumerHalt : public Error {
public:
    explicit ConsumerHalt(const std::string& message) : Error(message) {}
};

// What a task came to, once its handler returned.
enum class TaskOutcome {
    done,     // acknowledged
    retried,  // failed, and will run again
    dead,     // failed at max attempts, or the handler said dead
    stale,    // its claim was taken away meanwhile (the reaper gave it to someone else): nothing was recorded
};

struct ConsumerReport {
    std::uint64_t done = 0;
    std::uint64_t failed = 0;       // results other than ok (retried or dead since)
    std::uint64_t retried = 0;
    // Went dead during the run: the handler's, and tasks the reaper took back too often.
    std::uint64_t dead = 0;
    std::uint64_t stale = 0;
    std::uint64_t handed_back = 0;  // claimed, then released unprocessed at a stop (no attempt counted)
    // until_empty: the queue held nothing left to run when the workers ended (see ConsumerOptions).
    bool drained = false;
    std::uint64_t delayed_left = 0;  // until_empty: tasks their producer delayed that are not due yet
    bool stopped = false;            // the stop flag was set
};

// The queue consumers take tasks from, named as a sink is: the URL's scheme picks the backend.
struct QueueSource {
    // mysql://user@host:port/db (or mariadb://): the queue table `queue` in that database;
    // redis://[user:pass@]host:port/db: the Redis queue `queue` (its keys: docs/DESIGN.md, "Queues"), or
    // the same reached by TLS, a unix socket or Sentinel (rediss://, redis+unix://, redis-sentinel://: the
    // forms of RedisOptions::from_url);
    // redis-cluster://[user:pass@]host:port[,host:port...]/: the same on the node that owns the queue's
    // hash slot ("{orders}").
    // A password may come from the environment, as MySqlOptions::from_url and RedisOptions::from_url say.
    std::string url;
    std::string queue;
    // Set by mysql() and redis(): connection options given as they are (a password from the program's own
    // secret store; nothing is formatted into a URL). `url` then only shows them, password redacted.
    std::variant<std::monostate, MySqlOptions, RedisOptions> connection;
    // Redis: non-empty, the queue is a stream (written with PushSide::xadd), read through this consumer
    // group (created at id 0 when missing), and its dead entries go to the stream <queue>:dead
    // (docs/streams.md). Empty: the queue is lists.
    std::string stream_group;

    // By URL; read when the consumers start (run_consumers throws UsageError for a bad one).
    static QueueSource from_url(std::string url, std::string queue);
    static QueueSource mysql(MySqlOptions options, std::string table);
    static QueueSource redis(RedisOptions options, std::string queue);
};

struct ConsumerOptions {
    QueueSource source;
    RetryPolicy retry;  // how failed tasks come back (max attempts, backoff), on every backend

    // What one backend reads; the others ignore it.
    // MySQL queue tables: how tasks are claimed, and after how many lost claims a task is dead.
    ClaimMode claim_mode = ClaimMode::skip_locked;
    int max_crashes = 3;
    // Redis queues: the producer's key names, score unit and priority lists, where retried, promoted and
    // recovered tasks go, the poll interval, and the consumers' name: the workers are <consumer>:0,
    // <consumer>:1, ... (empty: <host>:<pid>:<n>).
    RedisConsumerOptions redis;
    // Redis Cluster: the queue is spread over this many shards, {queue:0} ... {queue:N-1} (the producer's
    // --shards); every worker reads all of them, from a start that rotates. 0: one queue, as named.
    std::size_t shards = 0;

    std::size_t workers = 1;  // each with its own connection
    std::size_t batch = 1;    // tasks claimed at a time by a worker
    // How long a worker waits for a task before it looks at the stop flag again.
    std::chrono::milliseconds wait{1000};
    // Drain: stop once no task is ready, due, waiting out a retry delay or held by a live consumer (the
    // held ones are waited for; those of consumers that are gone are taken back and run). Tasks their
    // producer delayed are left and counted (ConsumerReport::delayed_left).
    bool until_empty = false;
    // MySQL: a claim older than this is taken back, so a handler renews it (TaskContext::heartbeat).
    std::chrono::milliseconds claim_timeout{std::chrono::minutes(5)};
    // Redis: a consumer whose heartbeat is older than this is taken for dead and its tasks recovered.
    std::chrono::milliseconds heartbeat_timeout{std::chrono::seconds(30)};
    // How often lost claims are taken back (MySQL reap, Redis recover); 0: never.
    std::chrono::milliseconds reap_interval{std::chrono::seconds(5)};

    // When it becomes true, each worker finishes the task it runs, hands the rest of its batch back and
    // stops. A wait on a Redis server that stopped answering ends about a second later (Interrupted).
    const std::atomic<bool>* stop = nullptr;
    // Called after each task's outcome is recorded, on its worker's thread, with the TaskContext object the
    // handler was given (a batch handler: an element of its vector), so a handler's own notes on a task
    // can be found by its address.
    std::function<void(const TaskContext&, TaskOutcome)> on_outcome;
    // Called once every worker has stopped, with the counts, also when run_consumers then throws.
    std::function<void(const ConsumerReport&)> on_finished;
};

// Runs the consumers until the stop flag is set or, with until_empty, the queue is drained. Bad options
// (an unknown scheme, a URL the backend cannot read) throw UsageError before anything is claimed; a
// failure of the queue (or a ConsumerHalt) stops every worker and is thrown once all of them stopped, as a
// backfill's is.
ConsumerReport run_consumers(const ConsumerOptions& options, const TaskHandler& handler);
// The same with a batch handler: each worker hands its whole claim to one call, then records the results
// (the acknowledgements in one round trip). A stop lets the batch in hand finish.
ConsumerReport run_batch_consumers(const ConsumerOptions& options, const BatchHandler& handler);

}  // namespace rowpump
