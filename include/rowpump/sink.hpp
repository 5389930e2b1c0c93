#pragma once
// Where rows meet a queue. One interface; the URI picks the implementation:
//   stdout | file:PATH          NDJSON, one payload per line
//   redis://[user:pass@]host:port/db     pipelined variadic RPUSH/LPUSH into lists, ZADD for delayed rows
//   mysql://user:pass@host:port/db       bulk INSERTs (multi-row where the server offers no bulk execution)
//                                        into the queue table of docs/DESIGN.md ("Queues"); mariadb:// is
//                                        the same
// A program that holds its connection settings (a password from its own secret store) gives them as they
// are instead, with SinkSpec::redis() or SinkSpec::mysql(): nothing is formatted into a URL.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/export.hpp"
#include "rowpump/options.hpp"

namespace ROWPUMP_EXPORT rowpump {

// One task on its way to a queue.
struct Message {
    std::string payload;
    int priority_level = 0;    // index into SinkSpec::priority_lists; 0 when there are no priority lists
    std::int64_t due_ms = 0;   // > 0: a delayed task, due at this Unix time in milliseconds
};

// RPUSH (a BLPOP consumer sees each range in key order) or LPUSH into lists, or XADD: one entry a row into the
// Redis stream `queue` (docs/streams.md), which consumer groups read.
enum class PushSide { right, left, xadd };

// Whose keys a Redis sink writes for queue Q (docs/worker-formats.md):
//   rowpump: the list Q (or Q:p:<level>), delayed tasks in Q:delayed (docs/DESIGN.md, "Queues");
//   sidekiq: LPUSH to queue:Q with Q added to the set `queues`; delayed jobs in the sorted set `schedule`,
//            scored by their due time in float seconds, as Sidekiq's client writes them;
//   celery:  LPUSH to the list Q, as kombu's Redis transport does; a delayed task is pushed at once, its
//            eta in its headers, and the worker holds it until then.
//   bullmq:  BullMQ 5's keys under <prefix>:Q: (a job hash each, its id in `wait` or `delayed`, `id`, `meta`,
//            `events`, `marker`), as Queue.addBulk leaves them (backend/redis/bullmq_scripts.hpp).
// Sidekiq and Celery workers BRPOP, so their layouts always LPUSH: `push` is for the rowpump layout.
enum class QueueLayout { rowpump, sidekiq, celery, bullmq };
// The unit of the delayed set's scores: Unix milliseconds (rowpump's own), or seconds (what a consumer
// comparing them with time() expects; milliseconds become a decimal fraction).
enum class DelayScore { milliseconds, seconds };
// Members of the delayed set: tagged (unique, so equal payloads stay apart) or the bare payload (for
// consumers that move members to a list themselves; equal payloads then collapse into one task).
enum class DelayedMembers { tagged, bare };

// The names of a Redis queue's keys and the unit of its delayed set's scores: the producer's
// (RedisSinkOptions) and its consumers' (RedisConsumerOptions, rowpump/queue.hpp) must agree.
struct RedisKeyNames {
    // Key names (docs/payloads-and-names.md): {queue} and {level} are replaced by the queue and a priority
    // list's name, {{ and }} are literal braces.
    std::string list_key = "{queue}:p:{level}";  // the priority lists
    std::string delayed_key = "{queue}:delayed";
    DelayScore delay_score = DelayScore::milliseconds;
};

// What only a Redis sink reads (redis://, rediss://, redis+unix://, redis-sentinel://, redis-cluster://);
// a job (run_job) with another sink refuses a value that is not the default.
struct RedisSinkOptions : RedisKeyNames {
    DelayedMembers delayed_members = DelayedMembers::tagged;
    // After each page, WAIT until this many replicas have acknowledged it, for at most wait_timeout
    // (--redis-wait N[:timeout_ms]; 0: no WAIT; not on a cluster). A page they do not acknowledge in time is
    // retried with a job id, and fails the run without one. docs/DESIGN.md, "Durability of Redis".
    unsigned wait_replicas = 0;
    std::chrono::milliseconds wait_timeout{1000};
    // PushSide::xadd: each XADD trims the stream to about this many entries (MAXLEN ~ N); 0: no trim.
    std::uint64_t stream_maxlen = 0;
    // Spread the queue over this many shards, the queues {queue:0} ... {queue:N-1}, each in its own hash
    // slot of a Redis Cluster (--shards N; 0: one queue, as named). Each page goes whole to one shard.
    std::size_t shards = 0;
    // The bullmq layout's key prefix, BullMQ's `prefix` option: keys are <prefix>:<queue>:wait and so on.
    std::string bullmq_prefix = "bull";
    // The celery layout's priority (TaskSpec's, copied by run_job): kombu's Redis transport LPUSHes a message
    // of priority p to Q, or to Q\x06\x16<step> for the largest of its priority_steps (0, 3, 6, 9) <= p
    // when that step is not 0, and its workers BRPOP those lists, step 0 first.
    unsigned celery_priority = 0;
    // Each message's priority is its own (a priority column): Message::priority_level holds it, 0..9, and the
    // message goes to its step's list; celery_priority is then unused.
    bool celery_priority_per_row = false;
};

struct SinkSpec {
    std::string uri = "stdout";
    std::string queue;  // Redis key prefix / MySQL queue table; required for redis and mysql sinks
    PushSide push = PushSide::right;
    // make_sink() takes it as given; run_job and BulkEnqueuer's worker-format constructor derive it from the
    // format, and refuse a different value rather than replace it.
    QueueLayout layout = QueueLayout::rowpump;
    // Priority lists, highest first. Redis: Message::priority_level i goes to "<queue>:p:<name i>".
    // MySQL: priority column = size - i. Empty: every ready message goes to the queue itself. run_job
    // derives them from the route's levels (leave them empty there: other lists are refused).
    std::vector<std::string> priority_lists;
    RedisSinkOptions redis_only;  // key names, the delayed set's scores and members, the WAIT for replicas
    // file:PATH: replace a regular file that is already there. Otherwise it is refused, before anything is
    // read, rather than silently truncated. Devices and pipes (file:/dev/stdout) are written either way.
    bool overwrite = false;
    // How long the sink's server (Redis, or MySQL for a queue table) may take to answer one read or write,
    // and how long an outage is retried, from its first failure, before the write fails. They apply to
    // every connection to it: the sink's, the job store's, the --high-water probe's. The backfill CLI
    // copies the source's (--read-timeout, --write-timeout, --retry-budget).
    ServerTimeouts timeouts;
    // Redis: RedisOptions::stop for every connection to the sink's server (run_job sets JobControl::stop).
    const std::atomic<bool>* stop = nullptr;

    // Typed targets, set by redis() and mysql(): when one is set it is the target, and `uri` only shows it
    // (password redacted) in logs, summaries and the job's definition.
    std::optional<RedisOptions> redis_target;
    std::optional<MySqlOptions> mysql_target;

    // The Redis lists named by `queue` on the server of `options`.
    static SinkSpec redis(RedisOptions options, std::string queue);
    // The queue table `table` in `options.database`, created when missing. The options' timeouts become
    // the spec's.
    static SinkSpec mysql(MySqlOptions options, std::string table);
};

class Sink {
public:
    virtual ~Sink() = default;
    // Writes the batch in order. Transient failures are retried with backoff; when that fails the batch
    // may be partly written (at-least-once) and QueueError is thrown.
    virtual void write(const std::vector<Message>& batch) = 0;
    // Ready tasks waiting in the queue (for --high-water); nullopt when the sink cannot tell.
    virtual std::optional<std::uint64_t> ready_count() = 0;
    // Keeps an idle connection open while the copy is paused (a ping); failures are left to the next write.
    virtual void keep_alive() {}
    // Where the rows go, password redacted: "redis://127.0.0.1:6379/0 list orders".
    virtual std::string describe() const = 0;
};

// Checks the spec (scheme, queue name, reachability, queue table shape, creating the table when it is
// missing) and opens a sink. Throws UsageError for a bad spec or a queue table of the wrong shape and
// QueueError when the target cannot be reached. Each worker opens its own sink.
std::unique_ptr<Sink> make_sink(const SinkSpec& spec);

}  // namespace rowpump
