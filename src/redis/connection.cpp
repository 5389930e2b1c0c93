#include "redis/connection.hpp"

// sds.h has no C++ guard, and hiredis.h includes it outside its own: first, then, and as C.
extern "C" {
#include <hiredis/sds.h>
}
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <thread>

#include "config/option_schema.hpp"
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

using config::OptionId;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

timeval to_timeval(milliseconds duration) {
    const auto ms = duration.count();
    return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
}

// How often a wait for the socket looks at the stop flag, and how long after a stop it still waits: a
// healthy server answers well within it, so the rows a clean stop still writes get written, and a
// server that stopped answering holds up the stop by this long at most.
constexpr milliseconds stop_poll{100};
constexpr milliseconds stop_grace{1000};

// The socket is ours to wait on (poll(2), so that the timeouts and a stop request are looked at while
// the server is silent), and a command started by a consumer (queue consume --exec) must not inherit
// it: a child that keeps the socket open keeps the session alive after this process died.
void make_nonblocking(redisContext& context) {
    const int fd = context.fd;
    if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
        ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC) != 0)
        throw QueueError(std::string("cannot set up the Redis socket: ") + std::strerror(errno), true);
    // hiredis then treats EAGAIN as "try again" instead of an error, and leaves the waiting to us.
    context.flags &= ~REDIS_BLOCK;
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
// flush() sends. redisAppendCommandArgv would build it in a buffer of its own first, formatting
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

Connection::Connection(RedisOptions options) : Connection(std::move(options), DeferredTag{}) { open(); }

Connection::Connection(RedisOptions options, DeferredTag) : options_(std::move(options)) {}

Connection Connection::connect_within(RedisOptions options) {
    Connection connection(std::move(options), DeferredTag{});
    connection.retrying([] {});
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
    // Without our own waits a server that stops answering (but keeps the socket open) would block us forever.
    make_nonblocking(*context);
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

Reply Connection::blocking_command(std::initializer_list<std::string_view> argv, milliseconds block) {
    if (pending_replies_ != 0)
        throw Error("bug: a Redis command sent while " + std::to_string(pending_replies_) +
                    " pipelined replies are unread");
    append(argv);
    return std::move(read_replies(1, block).front());
}

std::vector<Reply> Connection::read_replies(std::size_t count) { return read_replies(count, milliseconds(0)); }

std::vector<Reply> Connection::read_replies(std::size_t count, milliseconds block) {
    if (!context_) throw QueueError("Redis connection to " + options_.redacted() + " is closed", true);
    if (count > pending_replies_)
        throw Error("bug: reading " + std::to_string(count) + " Redis replies but only " +
                    std::to_string(pending_replies_) + " commands are pipelined");
    std::vector<Reply> replies;
    replies.reserve(count);
    std::string first_error;
    flush();
    for (std::size_t i = 0; i < count; ++i) {
        const ReplyPtr reply(static_cast<redisReply*>(next_reply(block)));
        --pending_replies_;
        if (reply->type == REDIS_REPLY_ERROR) {
            if (first_error.empty()) first_error.assign(reply->str, reply->len);
            replies.emplace_back();
        } else {
            replies.push_back(copy_reply(*reply));
        }
    }
    if (!first_error.empty())
        throw QueueError("Redis at " + options_.redacted() + " answered: " + first_error,
                         is_transient_error_reply(first_error));
    return replies;
}

void Connection::flush() {
    const SigpipeBlock no_sigpipe;
    for (int done = 0;;) {
        if (redisBufferWrite(context_.get(), &done) != REDIS_OK) throw_connection_lost("a pipelined write");
        if (done) return;
        wait_for_socket(POLLOUT, options_.write_timeout, "a write", config::option(OptionId::write_timeout).cli);
    }
}

void* Connection::next_reply(milliseconds block) {
    const milliseconds timeout = options_.read_timeout.count() == 0 ? milliseconds(0) : options_.read_timeout + block;
    const auto answer_due = steady_clock::now() + block;
    for (;;) {
        void* raw = nullptr;
        if (redisGetReplyFromReader(context_.get(), &raw) != REDIS_OK) throw_connection_lost("a read");
        if (raw != nullptr) return raw;
        wait_for_socket(POLLIN, timeout, "a read", config::option(OptionId::read_timeout).cli, answer_due);
        if (redisBufferRead(context_.get()) != REDIS_OK) throw_connection_lost("a read");
    }
}

bool Connection::stop_requested() const noexcept {
    return options_.stop != nullptr && options_.stop->load(std::memory_order_relaxed);
}

void Connection::wait_for_socket(short events, milliseconds timeout, std::string_view during, std::string_view flag,
                                 steady_clock::time_point answer_due) {
    const auto started = steady_clock::now();
    std::optional<steady_clock::time_point> stop_seen;
    for (;;) {
        pollfd socket{context_->fd, events, 0};
        const int ready = ::poll(&socket, 1, static_cast<int>(stop_poll.count()));
        // Ready, or an error or hang-up: the read or write that follows tells which.
        if (ready > 0) return;
        if (ready < 0 && errno != EINTR) throw_connection_lost(during);
        const auto now = steady_clock::now();
        const auto waited = std::chrono::duration_cast<milliseconds>(now - started);
        if (stop_requested()) {
            if (!stop_seen) stop_seen = std::max(now, answer_due);
            if (now - *stop_seen >= stop_grace) {
                context_.reset();
                pending_replies_ = 0;
                throw Interrupted("stopped by a signal while Redis at " + options_.redacted() +
                                  " had not answered for " + describe_duration(waited) + " during " + std::string(during));
            }
        }
        if (timeout.count() > 0 && waited >= timeout) {
            context_.reset();
            pending_replies_ = 0;
            throw QueueError("Redis at " + options_.redacted() + " did not answer within " + describe_duration(timeout) +
                                 " during " + std::string(during) + " (" + std::string(flag) + ")",
                             true);
        }
    }
}

long long Connection::client_id() { return command({"CLIENT", "ID"}).integer; }

void Connection::wait_before_retry(const Error& error, int attempt, const RetryDeadline& deadline) {
    const auto interrupted = [&] {
        return Interrupted("stopped by a signal while retrying Redis at " + options_.redacted() + ": " + error.what());
    };
    if (stop_requested()) throw interrupted();
    if (deadline.spent())
        throw QueueError("Redis at " + options_.redacted() + " unreachable for " + describe_duration(deadline.budget()) +
                             " (" + config::option(OptionId::retry_budget).cli + "): " + error.what(),
                         false);
    const auto wait = deadline.next_wait(attempt);
    log().warn("{}; retrying in {} ms", error.what(), wait.count());
    // In short steps: a stop request ends the wait.
    for (const auto until = steady_clock::now() + wait; steady_clock::now() < until;) {
        if (stop_requested()) throw interrupted();
        std::this_thread::sleep_for(std::min(stop_poll, std::chrono::duration_cast<milliseconds>(until - steady_clock::now()) + milliseconds(1)));
    }
}

Connection Connection::connect_at_start(RedisOptions options) {
    try {
        return Connection(std::move(options));
    } catch (const QueueError& error) {
        // Nothing has been written yet, and waiting out a retry budget would only hide the cause.
        if (error.is_transient()) throw UsageError(error.what());
        throw;
    }
}

}  // namespace rowpump::redis
