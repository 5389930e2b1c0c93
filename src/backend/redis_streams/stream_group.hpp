#pragma once
// One consumer of a Redis stream's consumer group, on its own connection: the group's acts as the
// consumer loop needs them (docs/streams.md).
//
//   claim:   entries idle past the claim timeout first (XAUTOCLAIM: their consumer died or stalled; those
//            whose delivery count passes max_attempts go to <stream>:dead instead), then new ones
//            (XREADGROUP >), blocking up to the wait when there are none;
//   ack:     XACK, of the entries this consumer still holds (another may have claimed one since: stale);
//   fail:    left pending, made to look idle so that it is claimed again after the retry delay (XCLAIM
//            IDLE ... JUSTID, which does not count a delivery); dead at max_attempts deliveries;
//   release: left pending, idle past the timeout at once, its delivery uncounted (XCLAIM RETRYCOUNT);
//   renew:   a long task's entries made fresh again (XCLAIM JUSTID), so they are not claimed meanwhile.
//
// An entry's payload is its `payload` field (what --push xadd writes), else its fields as a JSON object.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/redis/redis_script.hpp"
#include "redis/connection.hpp"
#include "rowpump/queue.hpp"

namespace rowpump {

struct StreamGroupOptions {
    std::string stream;
    std::string group;
    std::string consumer;  // this consumer's name in the group
    RetryPolicy retry;
    std::chrono::milliseconds claim_timeout{std::chrono::minutes(5)};
};

// A stream task's entry id, "<id>-<version>" (Task keeps the id's two numbers).
std::string entry_id(const Task& task);

// "<stream>:dead": where dead entries go, with `source_id` and `reason` fields added.
std::string stream_dead_key(const std::string& stream);

class StreamGroup {
public:
    // Connects within the retry budget and creates the group unless it exists (XGROUP CREATE ... 0
    // MKSTREAM). Throws UsageError when the key holds something other than a stream.
    StreamGroup(RedisOptions redis, StreamGroupOptions options);

    std::vector<Task> claim(std::size_t n, std::chrono::milliseconds wait);
    // Positions of the tasks this consumer no longer held (not acknowledged).
    std::vector<std::size_t> ack(const std::vector<Task>& tasks);
    // Throws StaleClaim when this consumer no longer holds the entry.
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy);
    void release(const std::vector<Task>& tasks);
    // Entries idle past the claim timeout, taken over by this consumer now (as claim() does): released
    // counts those it will run, dead those buried.
    ReapResult reclaim(std::size_t count);
    // Makes the entries in hand fresh again, at most once per third of the claim timeout.
    void renew();
    // The group's lag (entries not delivered yet) and its pending entries (held, and held past the timeout).
    Backlog backlog();
    // Removes this consumer from the group when it holds nothing.
    void leave();

    const StreamGroupOptions& options() const noexcept { return options_; }
    redis::Connection& connection() noexcept { return connection_; }

private:
    template <class Action>
    auto run(Action&& action) -> decltype(action()) {
        return connection_.retrying(std::forward<Action>(action));
    }
    void create_group();
    std::vector<Task> read_new(std::size_t n, std::chrono::milliseconds wait);
    std::vector<Task> take_idle(std::size_t n, ReapResult& reaped);
    void forget(const std::string& entry);
    // XCLAIM of `entries` this consumer holds, to itself: made `idle` ms idle, delivery count unchanged or
    // set to `retry_count` (empty). Returns how many it still held.
    long long touch(const std::vector<std::string_view>& entries, std::chrono::milliseconds idle,
                    std::string_view retry_count);

    StreamGroupOptions options_;
    std::string dead_;
    std::string timeout_text_;
    redis::Connection connection_;
    queue::RedisScript ack_script_;
    queue::RedisScript bury_script_;
    queue::RedisScript reclaim_script_;
    queue::RedisScript touch_script_;
    std::vector<std::string> held_;  // the entries claimed and not yet acknowledged, failed or released
    std::chrono::steady_clock::time_point next_reclaim_{};
    std::chrono::steady_clock::time_point next_renew_{};
};

}  // namespace rowpump
