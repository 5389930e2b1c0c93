#pragma once
// The work a consumer process does besides consuming, on its own connection: reaping lost claims (MySQL),
// or heartbeats for the process's consumers, promotion of due delayed tasks and reaping the tasks of
// silent consumers (Redis). tick() is called often; it decides what is due. Each backend opens its own
// (Backend::open_maintainer, src/backend/).
#include "rowpump/queue.hpp"

namespace rowpump {

class QueueMaintainer {
public:
    virtual ~QueueMaintainer() = default;
    // Returns what this tick took back (nothing when no reap was due).
    virtual ReapResult tick() = 0;
};

}  // namespace rowpump
