#pragma once
// The queue subcommands' view of --source: which backend, and the library options built from the flags.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/queue_command.hpp"
#include "rowpump/options.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::cli {

struct QueueSource {
    std::optional<MySqlOptions> mysql;  // exactly one of these is set
    std::optional<RedisOptions> redis;
    std::string redacted;               // for messages
};

// Parses --source (mysql://... or redis://...). Throws UsageError for anything else.
QueueSource parse_queue_source(const QueueOptions& options);
RetryPolicy retry_policy(const QueueOptions& options);
MySqlQueueOptions mysql_queue_options(const QueueOptions& options);
RedisQueueOptions redis_queue_options(const QueueOptions& options);

// Seconds from a flag as milliseconds; throws UsageError when negative.
std::chrono::milliseconds flag_milliseconds(double seconds, const char* flag);

// One consumer thread's handle on the queue, whichever the backend.
class QueueConsumer {
public:
    virtual ~QueueConsumer() = default;
    // Up to n tasks; waits up to `wait` when none is ready (MySQL polls with a growing pause).
    virtual std::vector<Task> take(std::size_t n, std::chrono::milliseconds wait) = 0;
    virtual void ack(const Task& task) = 0;  // throws StaleClaim
    virtual FailOutcome fail(const Task& task, const std::string& error) = 0;  // throws StaleClaim
    virtual void release(const std::vector<Task>& tasks) = 0;
    // What --until-empty still waits for when take() found nothing (see rowpump::Backlog).
    virtual Backlog backlog() = 0;
    // Called regularly while a task runs: renews the claims (MySQL); heartbeats run elsewhere (Redis).
    virtual void keep_alive() = 0;
    // Clean shutdown, after the tasks in hand are finished or released.
    virtual void leave() = 0;
    // "task 42 (57 bytes)" / "task #1f0c33a2 (57 bytes)" for log lines: never the payload, which is user data.
    virtual std::string describe(const Task& task) const = 0;
    // Redis: this consumer's name (for the heartbeat thread); MySQL: empty.
    virtual std::string name() const = 0;
};

// Work done besides consuming, on its own connection: reaping (MySQL), or heartbeats for `consumers`,
// promotion of delayed tasks and recovery (Redis). tick() is called often; it decides what is due.
class QueueMaintainer {
public:
    virtual ~QueueMaintainer() = default;
    virtual void tick() = 0;
};

std::unique_ptr<QueueConsumer> open_consumer(const QueueSource& source, const QueueOptions& options, std::size_t index);
std::unique_ptr<QueueMaintainer> open_maintainer(const QueueSource& source, const QueueOptions& options,
                                                 std::vector<std::string> consumers);

}  // namespace rowpump::cli
