#pragma once
// A move-only blocking connection to one Redis server that authenticates, selects the database, pipelines
// commands and turns every failure into a QueueError. It owns its socket (stream.hpp: plain TCP, a unix
// socket, or TLS through OpenSSL), writes the commands itself, and keeps hiredis only to parse replies
// (its redisReader): Debian 12's hiredis 0.14 has no TLS. Neither shows in this header.
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

struct redisReader;

namespace rowpump::redis {

class Stream;

class Connection {
public:
    // Connects (through the sentinels to the master they name, for a Sentinel URL; with the TLS handshake
    // for rediss://), authenticates (AUTH [user] password when a password is given) and selects the database.
    // A TLS check that fails (the server's certificate or name, the client's certificate) is a UsageError.
    // Throws QueueError: transient when the server cannot be reached, not when it refuses the login.
    // Every read waits at most options.read_timeout for the server, every write options.write_timeout
    // (0: as long as it takes); a wait past it closes the handle and throws a transient QueueError.
    explicit Connection(RedisOptions options);
    // Like the constructor, but retries transient failures with backoff for up to options.retry_budget.
    static Connection connect_within(RedisOptions options);
    // The first connection of a run: one attempt, and a server that cannot be reached is a UsageError
    // (exit 2, nothing written) that names the cause at once instead of after a retry budget of warnings.
    static Connection connect_at_start(RedisOptions options);
    ~Connection();
    Connection(Connection&&) noexcept;
    Connection& operator=(Connection&&) noexcept;

    // Sends one command and waits for its reply. An error reply (WRONGTYPE, NOAUTH, ...) throws a QueueError
    // that is not transient, except the ones a server sends while it is starting or failing over (LOADING,
    // BUSY, TRYAGAIN, MASTERDOWN). A lost connection throws a transient QueueError and closes this handle.
    // Not to be mixed with unread pipelined commands.
    Reply command(std::span<const std::string_view> argv);
    Reply command(std::initializer_list<std::string_view> argv);
    // A command the server may hold for up to `block` before it answers (BLMOVE ... timeout): its reply
    // may take the read timeout plus that long.
    Reply blocking_command(std::initializer_list<std::string_view> argv, std::chrono::milliseconds block);

    // Pipelining: append() only buffers the command; read_replies(n) sends everything buffered and reads
    // the next n replies, all of them even when some are errors (so the stream stays in step), then
    // throws the first error reply as command() would.
    void append(std::span<const std::string_view> argv);
    void append(std::initializer_list<std::string_view> argv);
    std::vector<Reply> read_replies(std::size_t count);

    // CLIENT ID: the server's id of this session; it changes on reconnect.
    long long client_id();

    // False after a lost connection (until reconnect()).
    bool connected() const noexcept { return stream_ != nullptr; }
    // Drops the session (and any unread pipelined replies) and opens a new one; one attempt.
    void reconnect();

    // Calls `action` (reconnecting first when the handle is closed) until it succeeds or throws an error
    // that is not transient: the one retry policy (retry.hpp), as MySQL's connections retry. Between
    // attempts it waits with exponential backoff and jitter; once options.retry_budget has passed since
    // the first failure it throws QueueError("Redis at <url> unreachable for N s (--retry-budget): <last
    // error>"), not transient: the time the caller allowed is spent, and no outer retry starts it again.
    // A reconnect is part of the next attempt, so the worst-case wait is the budget plus one attempt (a
    // read timeout or a connect timeout). A stop request (RedisOptions::stop) ends the retries with
    // Interrupted. `action` must be safe to repeat.
    template <class Action>
    auto retrying(Action&& action) -> decltype(action()) {
        return retry_transient(
            options_.retry_budget,
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
    struct ReaderDeleter {
        void operator()(redisReader* reader) const noexcept;
    };
    struct DeferredTag {};

    Connection(RedisOptions options, DeferredTag);
    void open();
    // The socket to the server (or to the master the sentinels name), its TLS handshake done.
    void open_stream();
    void login();
    void check_master_role();
    // Closes the handle: the stream, the reader and whatever was buffered or pipelined.
    void close() noexcept;
    // Sends what append() buffered, waiting for the socket up to the write timeout at a time.
    void flush();
    // The next reply, reading as much as it takes; each wait for the socket may last the read timeout
    // plus `block`. A redisReply*, which the caller frees.
    void* next_reply(std::chrono::milliseconds block);
    // Feeds the reader what the stream has now; false when it had nothing and waits for `wait_events`.
    bool read_some(short& wait_events);
    std::vector<Reply> read_replies(std::size_t count, std::chrono::milliseconds block);
    // Waits until the socket is ready for `events` (poll(2)), looking at the stop flag every 100 ms.
    // Throws a transient QueueError after `timeout` (0: never), Interrupted a second after a stop, or a
    // second after `answer_due` when that is later: a blocking command is answered once its block time
    // is over, and a stop that came during it (a signal that woke this very poll) is no reason to give up
    // on a healthy server. `flag` names the timeout in the error ("--read-timeout").
    void wait_for_socket(short events, std::chrono::milliseconds timeout, std::string_view during,
                         std::string_view flag, std::chrono::steady_clock::time_point answer_due = {});
    bool stop_requested() const noexcept;
    [[noreturn]] void throw_connection_lost(std::string_view during, std::string_view reason = {});
    void wait_before_retry(const Error& error, int attempt, const RetryDeadline& deadline);

    RedisOptions options_;
    std::unique_ptr<Stream> stream_;
    std::unique_ptr<redisReader, ReaderDeleter> reader_;
    std::string output_;          // commands append() wrote, not yet sent
    std::size_t output_sent_ = 0;  // the part of output_ that flush() has sent
    bool answered_ = false;        // the server has sent this session a byte
    std::size_t pending_replies_ = 0;
};

}  // namespace rowpump::redis
