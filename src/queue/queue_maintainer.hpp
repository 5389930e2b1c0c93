#pragma once
// The work a consumer process does besides consuming, on its own connection: reaping lost claims (MySQL),
// or heartbeats for the process's consumers, promotion of due delayed tasks and reaping the tasks of
// silent consumers (Redis). tick() is called often; it decides what is due.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "rowpump/options.hpp"
#include "rowpump/queue.hpp"

namespace rowpump {

class QueueMaintainer {
public:
    virtual ~QueueMaintainer() = default;
    // Returns what this tick took back (nothing when no reap was due).
    virtual ReapResult tick() = 0;
};

// Reaps every `reap_interval` (0: never) the claims older than `claim_timeout` or whose owner is gone.
std::unique_ptr<QueueMaintainer> open_mysql_maintainer(const MySqlOptions& mysql, MySqlQueueOptions queue,
                                                       std::chrono::milliseconds claim_timeout,
                                                       std::chrono::milliseconds reap_interval);
// Beats for `consumers` three times per `heartbeat_timeout`, promotes every 200 ms, and reaps every
// `reap_interval` (0: never) the consumers whose beat is older than `heartbeat_timeout`.
std::unique_ptr<QueueMaintainer> open_redis_maintainer(const RedisOptions& redis, RedisQueueOptions queue,
                                                       std::vector<std::string> consumers,
                                                       std::chrono::milliseconds heartbeat_timeout,
                                                       std::chrono::milliseconds reap_interval);

}  // namespace rowpump
