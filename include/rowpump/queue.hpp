#pragma once
// The consumer side of rowpump's queues (docs/DESIGN.md, "Queues"): take tasks, process them, acknowledge them,
// retry the ones that fail and recover the ones whose consumer died.
//
// Both queues deliver at least once: a task is taken by one consumer at a time, and it comes back when
// that consumer fails it, dies or stalls. Work must therefore be idempotent. A consumer whose claim was
// taken away is told so (StaleClaim) when it acknowledges, so it can stop caring about that task.
//
// Both classes name the same acts alike: claim, ack, fail, release, heartbeat (keep the claims alive),
// reap (take back the claims of consumers that died or stalled).
//
// Each object owns one connection and is used by one thread at a time: run one per consumer thread.
// Like every public header, C++17 is enough to include it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace ROWPUMP_EXPORT rowpump {

// One task a consumer holds.
struct Task {
    std::uint64_t id = 0;       // MySQL: the row id. Redis: 0 (a Redis task is its payload). Redis stream:
                                // the entry id's milliseconds ("<id>-<version>")
    std::string payload;
    std::uint64_t version = 0;  // MySQL: the fencing token of this claim. Redis: 0. Redis stream: the entry
                                // id's sequence number
    int attempts = 0;           // how many times the task failed before (Redis: failures and crashes)
    // How many times the task has been handed to a consumer, this time included: 1 on its first delivery,
    // then one more for every failure and for every claim taken back from a consumer that died or
    // stalled (MySQL: 1 + attempts + crashes). A task handed back unprocessed (release) is not counted.
    int deliveries = 1;
};

// The claim on a task is gone: the reaper gave it to someone else (its owner died or held it past the
// timeout), or it was finished elsewhere. The worker should drop the task: someone else has it, or had
// it, and will (or did) finish it.
class StaleClaim : public QueueError {
public:
    explicit StaleClaim(const std::string& message) : QueueError(message, false) {}
};

// How failed tasks come back. The delay before retry k (k = 1 after the first failure) is
// min(cap, base * 2^(k-1)), less a random part of up to `jitter` of it, so retries of a burst of tasks
// that failed together spread out instead of hitting the struggling service at the same moment.
struct RetryPolicy {
    int max_attempts = 5;                       // the failure that reaches this count makes the task dead
    std::chrono::milliseconds backoff_base{1000};
    std::chrono::milliseconds backoff_cap{std::chrono::minutes(10)};
    double jitter = 0.5;                        // 0: exact delays; 0.5: between half and all of the delay
};

enum class FailOutcome { retried, dead };

// What a reap did.
struct ReapResult {
    std::uint64_t released = 0;  // back to ready
    std::uint64_t dead = 0;      // lost too often (poison tasks): moved to dead
};

// What a consumer that drains a queue (`queue consume --until-empty`) still has to wait for when it finds
// nothing to take: tasks that are due but were not takeable by it a moment ago (MySQL: behind the claim
// cursor; Redis: not promoted yet, or promoted since), and failed tasks waiting out their retry delay.
// Tasks their producer delayed and that are not due yet are only counted: they may be due in hours.
struct Backlog {
    std::uint64_t waiting = 0;
    std::chrono::milliseconds next_due{0};  // until the first waiting task is due (0: now)
    std::uint64_t later = 0;                // delayed by their producer, not due yet
    // Tasks other consumers hold (MySQL: every claimed row; Redis: the processing lists of the other
    // consumers with a heartbeat). They are not finished: each is acknowledged, or fails and comes
    // back, or is taken back once its owner is gone.
    std::uint64_t held = 0;
    // Of those, the ones whose owner is gone as far as the queue can tell (MySQL: its connection is not in
    // the processlist; Redis: its heartbeat is older than the timeout given): a reap takes them back now.
    std::uint64_t orphaned = 0;
};

// A snapshot of a queue, for `rowpump queue stats` and monitoring.
struct QueueStats {
    struct Holder {
        std::string name;        // MySQL: the owner's CONNECTION_ID(); Redis: the consumer name
        std::uint64_t tasks = 0;
        double age_seconds = 0;  // MySQL: the oldest claim's age; Redis: time since the last heartbeat
        bool alive = true;       // MySQL: the connection is in the processlist; Redis: the heartbeat is recent
    };

    std::uint64_t ready = 0;              // MySQL: including tasks waiting for their available_at
    std::uint64_t in_flight = 0;          // MySQL: claimed; Redis: in processing lists
    std::optional<std::uint64_t> done;    // MySQL only (Redis forgets acknowledged tasks)
    std::uint64_t dead = 0;
    std::optional<std::uint64_t> delayed;  // Redis only: the delayed set, retries included
    // A Redis stream: its entries, acknowledged ones included (ready is the group's lag, in_flight its
    // pending entries).
    std::optional<std::uint64_t> stream_length;
    // MySQL: how long the oldest available ready task has waited (nullopt: none is available).
    std::optional<double> oldest_ready_seconds;
    // Counts stop at the limit given to stats() (0: exact); true when one of them did.
    bool capped = false;
    std::vector<Holder> holders;
};

// ---------------------------------------------------------------------------------------------------
// MySQL queue table (the contract of docs/DESIGN.md, "Queues"; created by create_table or the producer).
//
// Columns as the consumers use them: `attempts` counts failures (fail()), `crashes` counts claims the
// reaper took back (owner gone or past the timeout); either reaching its maximum makes the task dead.
// `version` grows with every claim, failure, release and reap: ack and fail name the version they
// claimed, so a worker whose claim was taken away cannot finish a task someone else now holds.
// Priority: higher first; then available_at, then id.

enum class ClaimMode {
    // No transaction; despite the name, a plain SELECT reads n due rows, then UPDATE ... WHERE status = 'ready' AND (id,
    // version) marks those still ready as owned by CONNECTION_ID(). When another claimer took some in
    // between, a SELECT by owner reads back which. Workers in other languages may run the shorter
    // `UPDATE ... ORDER BY ... LIMIT n` + `SELECT ... WHERE owner = CONNECTION_ID()` on the same table.
    update_then_select,
    // SELECT ... FOR UPDATE SKIP LOCKED, UPDATE by id, COMMIT: claimers never wait for each other's rows
    // (MySQL 8.0 / MariaDB 10.6 and later).
    skip_locked,
};

struct MySqlQueueOptions {
    std::string table;  // in the database of the connection URL
    ClaimMode claim_mode = ClaimMode::skip_locked;
    RetryPolicy retry;
    int max_crashes = 3;  // the reap that reaches this count makes the task dead
};

class MySqlQueue {
public:
    // Connects (READ COMMITTED: claims take no gap locks) and checks the table's shape: throws
    // UsageError when the table is missing or wrong, DbError/ConnectionLost when the server is.
    MySqlQueue(MySqlOptions options, MySqlQueueOptions queue);
    ~MySqlQueue();
    MySqlQueue(MySqlQueue&&) noexcept;
    MySqlQueue& operator=(MySqlQueue&&) noexcept;

    // Creates the queue table unless it exists, then checks its shape.
    static void create_table(const MySqlOptions& options, const std::string& table);

    // Claims up to n available ready tasks, highest priority first; an empty result means none is
    // available now. Tasks this object already holds are never returned again. The priority levels in
    // use are looked up at most every 200 ms: a task of a level that did not exist before may wait that
    // long behind lower ones.
    std::vector<Task> claim(std::size_t n);
    // Marks the task done. Throws StaleClaim when the claim was taken away.
    void ack(const Task& task);
    // Marks the tasks done in as few statements as possible; returns the indexes (into `tasks`) of those
    // whose claim was taken away. Acknowledging a task twice is harmless.
    std::vector<std::size_t> ack(const std::vector<Task>& tasks);
    // Counts a failure: the task is ready again after the retry delay, or dead at max_attempts. `error`
    // is kept in last_error. Throws StaleClaim when the claim was taken away.
    FailOutcome fail(const Task& task, const std::string& error);
    // As fail(), with the delay and the max attempts of `policy` instead of the queue's own: a handler's
    // "retry in 5 s" (base = cap = 5 s, jitter 0) or "dead now" (max_attempts 1).
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy);
    // Hands tasks back unprocessed (shutting down): ready at once, no attempt counted. Stale ones are
    // skipped.
    void release(const std::vector<Task>& tasks);
    // Renews every claim this object's connection holds, so a long task is not taken for a stuck one.
    void heartbeat();

    // Takes claims back: at once when the owner's connection is gone (not in the processlist), and when
    // a claim is older than `claim_timeout`. Each counts as a crash. The processlist shows the connections
    // of the reaper's own MySQL user, or all of them with the PROCESS privilege: run consumers and the
    // reaper as the same user or grant PROCESS, or live claims of other users look orphaned.
    ReapResult reap(std::chrono::milliseconds claim_timeout);
    // Deletes done tasks last updated more than `older_than` ago, `batch` rows per statement so no lock
    // is held for long. Returns the number deleted.
    std::uint64_t purge(std::chrono::seconds older_than, std::size_t batch = 1000);
    // Makes up to `limit` dead tasks ready again (0: all), attempts and crashes reset. Returns the number.
    std::uint64_t requeue_dead(std::uint64_t limit = 0);
    // Counts stop at `count_limit` rows per status (0: exact; a count walks the index).
    QueueStats stats(std::uint64_t count_limit = 10'000'000);
    // Ready rows not taken yet: due ones and retries (attempts > 0) are waiting, the others are later.
    // Looks at the first `row_limit` ready rows of the claim index. Claimed rows are held.
    Backlog backlog(std::uint64_t row_limit = 100'000);

    // CONNECTION_ID() of this object's session: the `owner` of the claims it makes.
    std::uint64_t owner_id();
    const MySqlQueueOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------------
// Redis queue Q (keys of docs/DESIGN.md, "Queues"). A consumer moves tasks atomically from the ready lists into
// its own processing list Q:processing:<consumer> (reliable pop) and removes them from there on ack.
// Consumers beat in the sorted set Q:consumers (member: consumer, score: server time in ms); reap()
// returns the processing lists of consumers whose beat is too old.
//
// Retries: Redis tasks are bare payloads (producers and consumers in other languages rely on that), so
// the failure count lives beside them in the hash Q:attempts (payload -> count) rather than in an
// envelope; identical payloads share one count. A failed task waits in Q:delayed (retry delay as for
// MySQL) and promote() moves it back; after max_attempts it goes to the list Q:dead. A reaped
// task's crash counts as an attempt too, which stops poison tasks that kill their consumer.
//
// Members of Q:delayed carry a 37-byte tag before the payload, "rp1:" + 32 lowercase hex digits + ":",
// so that identical payloads stay separate tasks (src/queue/redis_delayed_member.hpp). promote() strips it:
// ready lists, processing lists and Q:dead hold bare payloads. Retries are tagged with writer 0
// ("rp1:0000000000000000..."). A member without a well-formed tag is promoted as it is.

// What a Redis consumer reads besides its queue's name and retry policy: the producer's key names and
// score unit (RedisKeyNames: its SinkSpec's), its priority lists, and the consumer's own settings.
struct RedisConsumerOptions : RedisKeyNames {
    // Priority list names, highest first: the consumer reads each list named by list_key in this order,
    // then Q. Retries are scored in delay_score's unit too.
    std::vector<std::string> priority_lists;
    // Where retried, promoted (due delayed) and recovered tasks go: a name from priority_lists, or empty
    // for the ready list Q (read after every priority list).
    std::string return_list;
    // This consumer's name (its processing list is Q:processing:<name>); empty: <host>:<pid>:<n>.
    // A consumer restarted under the same name takes over what its predecessor held.
    std::string consumer;
    // A blocked pop over several priority lists waits on the first one for this long at a time, then
    // looks at the others: a task in a lower list waits up to this long when the queue was idle. With one
    // list the pop blocks on it directly and wakes at once.
    std::chrono::milliseconds poll_interval{100};
};

struct RedisQueueOptions : RedisConsumerOptions {
    std::string queue;
    RetryPolicy retry;
    std::size_t promote_batch = 1000;  // delayed tasks moved per script call
    // How long a command may wait and how long an unreachable Redis is retried: RedisOptions (ServerTimeouts).
};

class RedisQueue {
public:
    // Connects (retrying an unreachable server for up to options.retry_budget).
    RedisQueue(RedisOptions options, RedisQueueOptions queue);
    ~RedisQueue();
    RedisQueue(RedisQueue&&) noexcept;
    RedisQueue& operator=(RedisQueue&&) noexcept;

    // Moves up to n tasks into this consumer's processing list and returns them, highest priority first.
    // When none is ready, waits up to `wait` for one (0: returns at once). The first claim beats the
    // heartbeat once; long-running consumers keep beating with heartbeat().
    std::vector<Task> claim(std::size_t n, std::chrono::milliseconds wait = {});
    // Removes the task from the processing list. Throws StaleClaim when it is no longer there (reaped
    // because this consumer's heartbeat expired).
    void ack(const Task& task);
    // Batched: one script call; returns the indexes of the tasks no longer held.
    std::vector<std::size_t> ack(const std::vector<Task>& tasks);
    // Counts a failure: into Q:delayed with the retry delay, or Q:dead at max_attempts. Throws StaleClaim.
    // Redis keeps no per-task error text: `error` only goes to the debug log.
    FailOutcome fail(const Task& task, const std::string& error);
    // As fail(), with the delay and the max attempts of `policy` instead of the queue's own.
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy);
    // Hands tasks back unprocessed: to the head of the return list, in order, no attempt counted.
    void release(const std::vector<Task>& tasks);

    // Records that this consumer (or the named ones) is alive, at the server's time.
    void heartbeat();
    void heartbeat(const std::vector<std::string>& consumers);
    // A clean goodbye: removes this consumer's heartbeat when its processing list is empty.
    void leave();
    // Returns the processing lists of consumers whose last beat is older than `heartbeat_timeout` to the
    // head of the return list (or to Q:dead, for tasks that reach max_attempts), and forgets those
    // consumers. Atomic per consumer: a consumer that beats again in between keeps its tasks.
    ReapResult reap(std::chrono::milliseconds heartbeat_timeout);
    // Moves due tasks from Q:delayed to the tail of the return list, promote_batch per script call, until
    // none is due. Uses the server's clock. Returns the number moved.
    std::uint64_t promote();
    // Moves up to `limit` tasks (0: all) from Q:dead to the tail of the return list, attempts reset.
    std::uint64_t requeue_dead(std::uint64_t limit = 0);
    // Holders are the consumers with a heartbeat; alive when it is at most `heartbeat_timeout` old.
    QueueStats stats(std::chrono::milliseconds heartbeat_timeout = std::chrono::seconds(30));
    // The ready lists and Q:delayed as a draining consumer sees them: ready tasks, members already due
    // and retries (members tagged by the fail script) are waiting, the other members are later. Retries
    // are looked for among the first 10 000 members due within this consumer's backoff cap, the longest
    // a retry can wait. The processing lists of the other consumers are held, orphaned when their beat is
    // older than `heartbeat_timeout`.
    Backlog backlog(std::chrono::milliseconds heartbeat_timeout = std::chrono::seconds(30));

    const std::string& consumer() const;
    const RedisQueueOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rowpump
