#pragma once
// The queue the fakes write into, the faults a run can be given, and a Sink over that queue.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/sink.hpp"

namespace rowpump::test {

// Every message written, in the order the writes landed (thread-safe). Payloads are one-column JSON
// rows, {"id":N}: the key is what is kept.
class FakeQueue {
public:
    void push(const std::vector<Message>& batch) {
        const std::lock_guard lock(mutex_);
        for (const Message& message : batch) keys_.push_back(key_in(message.payload));
    }
    std::size_t size() const {
        const std::lock_guard lock(mutex_);
        return keys_.size();
    }
    std::vector<std::int64_t> keys() const {
        const std::lock_guard lock(mutex_);
        return keys_;
    }

private:
    static std::int64_t key_in(const std::string& payload) {
        const auto colon = payload.rfind(':');
        return std::stoll(payload.substr(colon == std::string::npos ? 0 : colon + 1));
    }

    mutable std::mutex mutex_;
    std::vector<std::int64_t> keys_;
};

enum class Fault {
    none,
    write_fails,  // one write throws, nothing of it written: the run fails, and a rerun goes on
    lease_lost,   // a range's lease expires before one of its pages lands: another worker takes it over
    split,        // a range is split while one of its pages is in flight
    stop,         // the run is asked to stop
};

inline const char* to_string(Fault fault) {
    switch (fault) {
        case Fault::none: return "none";
        case Fault::write_fails: return "write_fails";
        case Fault::lease_lost: return "lease_lost";
        case Fault::split: return "split";
        case Fault::stop: return "stop";
    }
    return "?";
}

// One fault, injected once: at the first write that finds at least `after_rows` rows in the queue.
class FaultPlan {
public:
    FaultPlan(Fault fault, std::size_t after_rows) : fault_(fault), after_rows_(after_rows) {}

    Fault fault() const { return fault_; }
    // True when a write finding `queued` rows in the queue is where `kind` is due (it has not fired yet).
    bool due(Fault kind, std::size_t queued) const { return kind == fault_ && queued >= after_rows_ && !fired_.load(); }
    // Fires `kind` when it is due, once over every thread and run.
    bool fire(Fault kind, std::size_t queued) { return due(kind, queued) && !fired_.exchange(true); }
    bool fired() const { return fired_.load(); }

    // What a stop and a board's split do, set by the harness for each run.
    std::function<void()> on_stop;
    std::function<void()> on_split;

private:
    Fault fault_;
    std::size_t after_rows_;
    std::atomic<bool> fired_{false};
};

// A board worker's sink: writes to the shared queue, fails or stops when the plan says so.
class FakeSink final : public Sink {
public:
    FakeSink(FakeQueue& queue, FaultPlan& faults) : queue_(queue), faults_(faults) {}

    void write(const std::vector<Message>& batch) override {
        const std::size_t queued = queue_.size();
        if (faults_.fire(Fault::write_fails, queued)) throw QueueError("injected: a write failed", false);
        if (faults_.fire(Fault::stop, queued) && faults_.on_stop) faults_.on_stop();
        if (faults_.fire(Fault::split, queued) && faults_.on_split) faults_.on_split();
        queue_.push(batch);
    }
    std::optional<std::uint64_t> ready_count() override { return queue_.size(); }
    std::string describe() const override { return "fake queue"; }

private:
    FakeQueue& queue_;
    FaultPlan& faults_;
};

}  // namespace rowpump::test
