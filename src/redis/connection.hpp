#pragma once
// With connection.cpp, the only place hiredis appears: a move-only blocking connection to one Redis server
// that authenticates, selects the database, pipelines commands and turns every failure into a QueueError.
// hiredis stays out of this header (forward declaration only), so callers never see a driver type.
#include <chrono>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/reply.hpp"
#include "retry.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"

struct redisContext;

namespace rowpump::redis {

class Connection {
public:
    // Connects, authenticates (AUTH [user] password when a password is given) and selects the database.
    // Throws QueueError: transient when the server cannot be reached, not when it refuses the login.
    // command_timeout bounds how long one socket read or write may stall; 0 waits as long as it takes
    // (what a blocking pop needs).
    explicit Connection(RedisOptions options, std::chrono::milliseconds command_timeout = {});
    // Like the constructor, but retries transient failures with backoff for up to `budget`.
    static Connection connect_within(RedisOptions options, std::chrono::milliseconds budget,
                                     std::chrono::milliseconds command_timeout = {});
    // The first connection of a run: one attempt, and a server that cannot be reached is a UsageError
    // (exit 2, nothing written) that names the cause at once instead of after a retry budget of warnings.
    static Connection connect_at_start(RedisOptions options, std::chrono::milliseconds command_timeout = {});
    ~Connection();
    Connection(Connection&&) noexcept;
    Connection& operator=(Connection&&) noexcept;

    // Sends one command and waits for its reply. An error reply (WRONGTYPE, NOAUTH, ...) throws a QueueError
    // that is not transient, except the ones a server sends while it is starting or failing over (LOADING,
    // BUSY, TRYAGAIN, MASTERDOWN). A lost connection throws a transient QueueError and closes this handle.
    // Not to be mixed with unread pipelined commands.
    Reply command(std::span<const std::string_view> argv);
    Reply command(std::initializer_list<std::string_view> argv);

    // Pipelining: append() only buffers the command; read_replies(n) sends everything buffered and reads
    // the next n replies, all of them even when some are errors (so the stream stays in step), then
    // throws the first error reply as command() would.
    void append(std::span<const std::string_view> argv);
    void append(std::initializer_list<std::string_view> argv);
    std::vector<Reply> read_replies(std::size_t count);

    // CLIENT ID: the server's id of this session; it changes on reconnect.
    long long client_id();

    // False after a lost connection (until reconnect()).
    bool connected() const noexcept { return context_ != nullptr; }
    // Drops the session (and any unread pipelined replies) and opens a new one; one attempt.
    void reconnect();

    // Calls `action` (reconnecting first when the handle is closed) until it succeeds or throws an error
    // that is not transient: the one retry policy (retry.hpp), as MySQL's connections retry. Between
    // attempts it waits with exponential backoff and jitter; once `budget` has passed since the first
    // failure it throws QueueError("Redis at <url> unreachable for N s: <last error>"), not transient: the
    // time the caller allowed is spent, and no outer retry starts it again. A reconnect is part of the next
    // attempt, so the worst-case wait is the budget plus one attempt (a command timeout or a connect
    // timeout). `action` must be safe to repeat.
    template <class Action>
    auto retrying(std::chrono::milliseconds budget, Action&& action) -> decltype(action()) {
        return retry_transient(
            budget,
            [&] {
                if (!connected()) reconnect();
                return action();
            },
            [this](const Error& error, int attempt, const RetryDeadline& deadline) {
                wait_before_retry(error, attempt, deadline);
            });
    }

    const RedisOptions& options() const noexcept { return options_; }

private:
    struct ContextDeleter {
        void operator()(redisContext* context) const noexcept;
    };
    struct DeferredTag {};

    Connection(RedisOptions options, std::chrono::milliseconds command_timeout, DeferredTag);
    void open();
    void login();
    [[noreturn]] void throw_connection_lost(std::string_view during);
    void wait_before_retry(const Error& error, int attempt, const RetryDeadline& deadline) const;

    RedisOptions options_;
    std::chrono::milliseconds command_timeout_;
    std::unique_ptr<redisContext, ContextDeleter> context_;
    std::size_t pending_replies_ = 0;
};

}  // namespace rowpump::redis
