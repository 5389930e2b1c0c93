#pragma once
// The reader sessions of a --consistent-snapshot run, all on one snapshot: each worker takes one when
// it starts and reads every range it gets through it, stolen halves included.
#include <memory>
#include <mutex>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/reader.hpp"

namespace rowpump {

class SnapshotSessions {
public:
    explicit SnapshotSessions(std::vector<std::shared_ptr<ReaderSession>> sessions) : sessions_(std::move(sessions)) {}

    std::shared_ptr<ReaderSession> take() {
        const std::lock_guard lock(mutex_);
        if (sessions_.empty()) throw Error("bug: more workers than consistent-snapshot sessions");
        auto session = std::move(sessions_.back());
        sessions_.pop_back();
        return session;
    }

private:
    std::mutex mutex_;
    std::vector<std::shared_ptr<ReaderSession>> sessions_;
};

}  // namespace rowpump
