#pragma once
// `rowpump queue init|stats|consume|reap|promote|purge|requeue-dead`: the consumer side of a queue, a
// MySQL queue table or a Redis queue, named by --source URI and --queue NAME.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/timeout_flags.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::cli {

struct QueueOptions {
    std::string source;  // mysql://... or redis://... (default: $ROWPUMP_QUEUE_SOURCE)
    std::string queue;   // MySQL queue table or Redis key prefix
    std::string group;   // Redis stream: the consumer group (empty: the queue is lists)
    std::vector<std::string> priority_lists;  // Redis: Q:p:<name>, highest first, read before Q
    std::string return_list;                  // Redis: where retries, promotions, recoveries go ("" = Q)
    RedisKeyNames redis_names;  // Redis: the producer's --list-key, --delayed-key and --delay-score
    std::size_t shards = 0;  // --shards N (0: not given)
    TimeoutFlags timeouts;  // --read-timeout, --write-timeout, --retry-budget

    // consume
    std::string exec;            // a process per task, or per --exec-batch tasks
    std::size_t exec_batch = 0;  // 0: --exec runs per task
    std::string pipe;            // persistent handler processes, fed task lines
    std::size_t inflight = 32;   // --pipe: tasks claimed together and outstanding at a handler
    double task_timeout_seconds = 300;  // --pipe: a result later than this is a fault
    std::size_t concurrency = 1;
    std::size_t batch = 1;
    ClaimMode claim_mode = ClaimMode::skip_locked;
    std::size_t max_attempts = 5;
    double backoff_seconds = 1;
    double backoff_cap_seconds = 600;
    std::size_t max_crashes = 3;
    double claim_timeout_seconds = 300;     // MySQL: a live claim older than this is taken back
    double heartbeat_timeout_seconds = 30;  // Redis: a consumer silent this long is recovered
    double reap_interval_seconds = 5;       // consume: how often the reaper / recovery runs (0: never)
    double poll_seconds = 0.1;              // Redis, priority lists: see RedisQueueOptions::poll_interval
    std::string consumer;                   // Redis: consumer name prefix (threads add :<n>)
    bool until_empty = false;
    std::string http;  // HOST:PORT of /metrics; empty: none
    double log_interval_seconds = 10;  // consume: seconds between progress lines (0: none)

    // purge
    double older_than_seconds = 86400;
    std::size_t purge_batch = 1000;
    // requeue-dead
    std::size_t limit = 0;
    // stats
    bool json = false;
    std::string stats_format = "text";  // queue stats --format: text, json or prometheus
    bool exact = false;  // count every row (default: stop counting at 10 million per status)
};

// The `queue` command and its subcommands; run_queue runs whichever was given.
CLI::App* setup_queue(CLI::App& app, QueueOptions& options);
int run_queue(const CLI::App& queue_command, const QueueOptions& options);

}  // namespace rowpump::cli
