#include "redis/connection.hpp"

// sds.h has no C++ guard, and hiredis.h includes it outside its own: first, then, and as C.
extern "C" {
#include <hiredis/sds.h>
}
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <thread>

#include "log.hpp"
#include "retry.hpp"

namespace rowpump::redis {

namespace {

// hiredis writes with write(2): on a socket the server has closed that raises SIGPIPE, which kills the
// process unless someone ignores it. A library must not change the process's signal handling, so the
// signal is blocked for this thread while hiredis writes, and a SIGPIPE it caused is consumed before the
// old mask comes back (the way libcurl and OpenSSL do it). The write then fails with EPIPE, which
// becomes a transient QueueError like any other lost connection.
class SigpipeBlock {
public:
    SigpipeBlock() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
        was_pending_ = pending();
    }
    ~SigpipeBlock() {
        if (!was_pending_ && pending()) {
            const timespec no_wait{0, 0};
            while (sigtimedwait(&pipe_, nullptr, &no_wait) == -1 && errno == EINTR) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    }
    SigpipeBlock(const SigpipeBlock&) = delete;
    SigpipeBlock& operator=(const SigpipeBlock&) = delete;

private:
    static bool pending() {
        sigset_t set;
        sigemptyset(&set);
        sigpending(&set);
        return sigismember(&set, SIGPIPE) == 1;
    }

    sigset_t pipe_;
    sigset_t previous_;
    bool was_pending_ = false;
};

struct ReplyDeleter {
    void operator()(redisReply* reply) const noexcept { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

timeval to_timeval(std::chrono::milliseconds duration) {
    const auto ms = duration.count();
    return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
}

// Redis's table of transient error replies, by their first word: trying again later succeeds. Any other
// error reply is final, and a lost connection is always transient (throw_connection_lost).
constexpr std::string_view transient_replies[] = {
    "LOADING",      // the server is loading its data set after a restart
    "BUSY",         // a script runs past lua-time-limit
    "TRYAGAIN",     // a multi-key command during a slot migration
    "MASTERDOWN",   // a replica that lost its master
    "CLUSTERDOWN",  // the cluster cannot serve the slot now
};

bool is_transient_error_reply(std::string_view text) {
    for (std::string_view prefix : transient_replies) {
        if (text.substr(0, prefix.size()) == prefix) return true;
    }
    return false;
}

Reply copy_reply(const redisReply& reply) {
    Reply out;
    switch (reply.type) {
        case REDIS_REPLY_STATUS:
            out.type = Reply::Type::status;
            out.text.assign(reply.str, reply.len);
            break;
        case REDIS_REPLY_STRING:
            out.type = Reply::Type::string;
            out.text.assign(reply.str, reply.len);
            break;
        case REDIS_REPLY_INTEGER:
            out.type = Reply::Type::integer;
            out.integer = reply.integer;
            break;
        case REDIS_REPLY_ARRAY:
            out.type = Reply::Type::array;
            out.elements.reserve(reply.elements);
            for (std::size_t i = 0; i < reply.elements; ++i) out.elements.push_back(copy_reply(*reply.element[i]));
            break;
        default:
            break;
    }
    return out;
}

char* append_length(char* out, char marker, std::size_t length) {
    *out++ = marker;
    out = std::to_chars(out, out + 20, length).ptr;
    *out++ = '\r';
    *out++ = '\n';
    return out;
}

// Writes one command in the Redis protocol (RESP) straight into hiredis's output buffer, which
// redisGetReply sends. redisAppendCommandArgv would build it in a buffer of its own first, formatting
// each length with sdscatfmt, and then copy it over: for a batch of payloads, that was a sixth of the
// client's CPU.
void append_command(redisContext& context, std::span<const std::string_view> argv) {
    constexpr std::size_t framing = 1 + 20 + 2;  // marker, the longest length, CRLF
    std::size_t total = framing;
    for (std::string_view arg : argv) total += framing + arg.size() + 2;
    if (total > INT_MAX) throw QueueError("a Redis command of " + std::to_string(total) + " bytes is too large", false);
    sds buffer = sdsMakeRoomFor(context.obuf, total);
    if (buffer == nullptr) throw std::bad_alloc();
    context.obuf = buffer;
    char* const start = buffer + sdslen(buffer);
    char* out = append_length(start, '*', argv.size());
    for (std::string_view arg : argv) {
        out = append_length(out, '$', arg.size());
        if (!arg.empty()) std::memcpy(out, arg.data(), arg.size());
        out += arg.size();
        *out++ = '\r';
        *out++ = '\n';
    }
    sdsIncrLen(buffer, static_cast<int>(out - start));
}

// "it has databases 0-15", from CONFIG GET databases; what the server said when CONFIG is not allowed.
std::string database_range(Connection& connection) {
    try {
        const Reply reply = connection.command({"CONFIG", "GET", "databases"});
        if (reply.elements.size() == 2)
            return "it has databases 0-" + std::to_string(std::stoll(reply.elements[1].text) - 1);
    } catch (const std::exception&) {
    }
    return "the server says the DB index is out of range";
}

}  // namespace

void Connection::ContextDeleter::operator()(redisContext* context) const noexcept { redisFree(context); }

Connection::Connection(RedisOptions options, std::chrono::milliseconds command_timeout)
    : Connection(std::move(options), command_timeout, DeferredTag{}) {
    open();
}

Connection::Connection(RedisOptions options, std::chrono::milliseconds command_timeout, DeferredTag)
    : options_(std::move(options)), command_timeout_(command_timeout) {}

Connection Connection::connect_within(RedisOptions options, std::chrono::milliseconds budget,
                                      std::chrono::milliseconds command_timeout) {
    Connection connection(std::move(options), command_timeout, DeferredTag{});
    connection.retrying(budget, [] {});
    return connection;
}

Connection::~Connection() = default;
Connection::Connection(Connection&&) noexcept = default;
Connection& Connection::operator=(Connection&&) noexcept = default;

void Connection::open() {
    context_.reset();
    pending_replies_ = 0;
    const timeval connect_timeout = to_timeval(options_.connect_timeout);
    redisContext* raw = options_.socket.empty()
                            ? redisConnectWithTimeout(options_.host.c_str(), static_cast<int>(options_.port),
                                                      connect_timeout)
                            : redisConnectUnixWithTimeout(options_.socket.c_str(), connect_timeout);
    if (raw == nullptr) throw std::bad_alloc();
    std::unique_ptr<redisContext, ContextDeleter> context(raw);
    if (context->err != 0)
        throw QueueError("cannot connect to Redis at " + options_.redacted() + ": " + context->errstr +
                             " (is the server running? check host and port)",
                         true);
    // Without this a server that stops answering (but keeps the socket open) would block us forever.
    if (redisSetTimeout(context.get(), to_timeval(command_timeout_)) != REDIS_OK)
        throw QueueError("cannot set the socket timeout for Redis at " + options_.redacted() + ": " +
                             context->errstr,
                         true);
    context_ = std::move(context);
    try {
        login();
    } catch (...) {
        context_.reset();
        throw;
    }
}

void Connection::login() {
    if (!options_.password.empty()) {
        try {
            if (options_.user.empty()) command({"AUTH", options_.password});
            else command({"AUTH", options_.user, options_.password});
        } catch (const QueueError& error) {
            if (error.is_transient()) throw;
            throw QueueError(std::string(error.what()) + " (check the user and password)", false);
        }
    }
    if (options_.db != 0) {
        const std::string db = std::to_string(options_.db);
        try {
            command({"SELECT", db});
        } catch (const QueueError& error) {
            const bool out_of_range = std::string_view(error.what()).find("DB index") != std::string_view::npos;
            if (error.is_transient() || !out_of_range) throw;
            throw UsageError("Redis at " + options_.redacted() + " has no database " + db + ": " +
                             database_range(*this) + "; give another number after the port, e.g. redis://host:port/0");
        }
    }
}

void Connection::reconnect() { open(); }

void Connection::throw_connection_lost(std::string_view during) {
    std::string reason = context_ ? context_->errstr : "connection closed";
    if (reason.empty()) reason = "connection closed";
    context_.reset();
    pending_replies_ = 0;
    throw QueueError("Redis connection to " + options_.redacted() + " lost during " + std::string(during) + ": " +
                         reason,
                     true);
}

Reply Connection::command(std::initializer_list<std::string_view> argv) {
    return command(std::span<const std::string_view>(argv.begin(), argv.size()));
}

Reply Connection::command(std::span<const std::string_view> argv) {
    if (pending_replies_ != 0)
        throw Error("bug: a Redis command sent while " + std::to_string(pending_replies_) +
                    " pipelined replies are unread");
    append(argv);
    return std::move(read_replies(1).front());
}

void Connection::append(std::initializer_list<std::string_view> argv) {
    append(std::span<const std::string_view>(argv.begin(), argv.size()));
}

void Connection::append(std::span<const std::string_view> argv) {
    if (!context_) throw QueueError("Redis connection to " + options_.redacted() + " is closed", true);
    append_command(*context_, argv);
    ++pending_replies_;
}

std::vector<Reply> Connection::read_replies(std::size_t count) {
    if (!context_) throw QueueError("Redis connection to " + options_.redacted() + " is closed", true);
    if (count > pending_replies_)
        throw Error("bug: reading " + std::to_string(count) + " Redis replies but only " +
                    std::to_string(pending_replies_) + " commands are pipelined");
    std::vector<Reply> replies;
    replies.reserve(count);
    std::string first_error;
    {
        const SigpipeBlock no_sigpipe;
        for (std::size_t i = 0; i < count; ++i) {
            void* raw = nullptr;
            if (redisGetReply(context_.get(), &raw) != REDIS_OK || raw == nullptr)
                throw_connection_lost("a pipelined write");
            --pending_replies_;
            const ReplyPtr reply(static_cast<redisReply*>(raw));
            if (reply->type == REDIS_REPLY_ERROR) {
                if (first_error.empty()) first_error.assign(reply->str, reply->len);
                replies.emplace_back();
            } else {
                replies.push_back(copy_reply(*reply));
            }
        }
    }
    if (!first_error.empty())
        throw QueueError("Redis at " + options_.redacted() + " answered: " + first_error,
                         is_transient_error_reply(first_error));
    return replies;
}

long long Connection::client_id() { return command({"CLIENT", "ID"}).integer; }

void Connection::wait_before_retry(const Error& error, int attempt, const RetryDeadline& deadline) const {
    if (deadline.spent())
        throw QueueError("Redis at " + options_.redacted() + " unreachable for " + describe_duration(deadline.budget()) +
                             ": " + error.what() + " (--retry-budget)",
                         false);
    const auto wait = deadline.next_wait(attempt);
    log().warn("{}; retrying in {} ms", error.what(), wait.count());
    std::this_thread::sleep_for(wait);
}

Connection Connection::connect_at_start(RedisOptions options, std::chrono::milliseconds command_timeout) {
    try {
        return Connection(std::move(options), command_timeout);
    } catch (const QueueError& error) {
        // Nothing has been written yet, and waiting out a retry budget would only hide the cause.
        if (error.is_transient()) throw UsageError(error.what());
        throw;
    }
}

}  // namespace rowpump::redis
