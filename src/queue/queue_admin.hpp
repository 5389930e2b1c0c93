#pragma once
// The one-step maintenance of a queue, whichever the backend: what `rowpump queue init|stats|reap|promote|
// purge|requeue-dead` run. Each call connects for itself, so init can create what the others then check.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "rowpump/queue.hpp"

namespace rowpump {

// How a backend names the parts of its stats: "claimed" rows and their "owners" (MySQL), or "processing"
// lists and their "consumers" (Redis).
struct StatsWords {
    std::string in_flight;   // "claimed" / "processing"
    std::string holders;     // "owners" / "consumers"
    std::string holder_age;  // "oldest_claim_seconds" / "last_beat_seconds_ago"
};

class QueueAdmin {
public:
    virtual ~QueueAdmin() = default;
    // Makes the queue ready (MySQL: creates the table unless it exists); returns a line that says what it is.
    virtual std::string init() = 0;
    // `exact`: count every task (else counts may stop at a limit, QueueStats::capped).
    virtual QueueStats stats(bool exact) = 0;
    virtual StatsWords words() const = 0;
    // One line of the text stats about a holder: "  consumer c1: 3 processing, last beat 1.0 s ago".
    virtual std::string holder_line(const QueueStats::Holder& holder) const = 0;
    // Takes back the claims of consumers that are gone or stalled (the ConsumerOptions' timeouts).
    virtual ReapResult reap() = 0;
    // Moves due delayed tasks to the ready list. Throws UsageError where tasks need no promotion.
    virtual std::uint64_t promote() = 0;
    // Deletes done tasks older than `older_than`. Throws UsageError where done tasks are not kept.
    virtual std::uint64_t purge(std::chrono::seconds older_than, std::size_t batch) = 0;
    virtual std::uint64_t requeue_dead(std::uint64_t limit) = 0;
};

// "1.5 s": an age or a wait, as the queue commands show it.
std::string seconds_text(double seconds);

}  // namespace rowpump
