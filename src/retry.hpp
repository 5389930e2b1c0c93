#pragma once
// One retry policy for every server rowpump talks to. A transient failure (a lost connection, a deadlock,
// a server that is restarting) is tried again after an exponential backoff with jitter, until a deadline
// that starts at the first failure. The worst-case wait is therefore the budget itself, however the
// retries nest: a reconnect inside a retried statement spends the same budget instead of its own.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "rowpump/error.hpp"

namespace rowpump {

// 100 ms doubling per attempt up to 3.2 s, plus up to as much again of random jitter, so that workers
// that failed together do not come back together.
std::chrono::milliseconds retry_backoff(int attempt);

// Transient failures retried in this process, MySQL and Redis alike (/metrics: rowpump_retries_total).
// Counted here, at the bottom of the house, so that the retry loop depends on nothing above it.
std::atomic<std::uint64_t>& retries_total();

// "45 s", "1500 ms": a duration as the messages of a retry say it.
std::string describe_duration(std::chrono::milliseconds duration);

class RetryDeadline {
public:
    explicit RetryDeadline(std::chrono::milliseconds budget)
        : budget_(budget), deadline_(std::chrono::steady_clock::now() + budget) {}

    bool spent() const { return std::chrono::steady_clock::now() >= deadline_; }
    std::chrono::milliseconds budget() const { return budget_; }
    std::chrono::milliseconds left() const;
    // How long to wait before `attempt` + 1: its backoff, but never past the deadline.
    std::chrono::milliseconds next_wait(int attempt) const;

private:
    std::chrono::milliseconds budget_;
    std::chrono::steady_clock::time_point deadline_;
};

// Calls `action` until it succeeds or fails with an error that is not transient. After each transient
// failure, `recover(error, attempt, deadline)` waits and repairs what it must (a reconnect); it throws the
// final error once the deadline, which starts at the first failure, is spent. `action` must be safe to repeat.
template <class Action, class Recover>
auto retry_transient(std::chrono::milliseconds budget, Action&& action, Recover&& recover) -> decltype(action()) {
    std::optional<RetryDeadline> deadline;
    for (int attempt = 1;; ++attempt) {
        try {
            return action();
        } catch (const Error& error) {
            if (!error.is_transient()) throw;
            if (!deadline) deadline.emplace(budget);
            retries_total().fetch_add(1, std::memory_order_relaxed);
            recover(error, attempt, *deadline);
        }
    }
}

}  // namespace rowpump
