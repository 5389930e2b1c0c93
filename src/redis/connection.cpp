#include "redis/connection.hpp"

#include <hiredis/hiredis.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <thread>
#include <tuple>

#include "config/option_schema.hpp"
#include "log.hpp"
#include "redis/endpoint.hpp"
#include "redis/stream.hpp"
#include "retry.hpp"

namespace rowpump::redis {

namespace {

struct ReplyDeleter {
    void operator()(redisReply* reply) const noexcept { freeReplyObject(reply); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

using config::OptionId;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// How often a wait for the socket looks at the stop flag, and how long after a stop it still waits: a
// healthy server answers well within it, so the rows a clean stop still writes get written, and a
// server that stopped answering holds up the stop by this long at most.
constexpr milliseconds stop_poll{100};
constexpr milliseconds stop_grace{1000};

// Redis's table of transient error replies, by their first word: trying again later succeeds. Any other
// error reply is final, and a lost connection is always transient (throw_connection_lost).
constexpr std::string_view transient_replies[] = {
    "LOADING",      // the server is loading its data set after a restart
    "BUSY",         // a script runs past lua-time-limit
    "TRYAGAIN",     // a multi-key command during a slot migration
    "MASTERDOWN",   // a replica that lost its master
    "CLUSTERDOWN",  // the cluster cannot serve the slot now
};

// By the whole first word: BUSYGROUP (the group exists) is final, though it starts with BUSY.
bool is_transient_error_reply(std::string_view text) {
    const std::string_view first_word = text.substr(0, text.find(' '));
    for (std::string_view code : transient_replies) {
        if (first_word == code) return true;
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

// Writes one command in the Redis protocol (RESP) onto `output`, which flush() sends. Room is made once
// for the whole command, and the payloads are copied once, straight from the caller's strings.
void append_command(std::string& output, std::span<const std::string_view> argv) {
    constexpr std::size_t framing = 1 + 20 + 2;  // marker, the longest length, CRLF
    std::size_t total = framing;
    for (std::string_view arg : argv) total += framing + arg.size() + 2;
    if (total > INT_MAX) throw QueueError("a Redis command of " + std::to_string(total) + " bytes is too large", false);
    output.reserve(output.size() + total);
    char head[framing];
    output.append(head, append_length(head, '*', argv.size()));
    for (std::string_view arg : argv) {
        output.append(head, append_length(head, '$', arg.size()));
        output.append(arg);
        output.append("\r\n", 2);
    }
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

void Connection::ReaderDeleter::operator()(redisReader* reader) const noexcept { redisReaderFree(reader); }

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

void Connection::close() noexcept {
    stream_.reset();
    reader_.reset();
    output_.clear();
    output_sent_ = 0;
    answered_ = false;
    pending_replies_ = 0;
}

void Connection::open() {
    close();
    try {
        open_stream();
        reader_.reset(redisReaderCreate());
        if (!reader_) throw std::bad_alloc();
        login();
    } catch (...) {
        close();
        throw;
    }
}

void Connection::open_stream() {
    std::string host = options_.host;
    unsigned port = options_.port;
    if (!options_.sentinels.empty()) std::tie(host, port) = master_from_sentinels(options_);
    try {
        stream_ = redis::open_stream(options_, host, port);
        while (const short wait = stream_->handshake())
            wait_for_socket(wait, options_.connect_timeout,
                            "the TLS handshake (a server silent in it may not speak TLS on this port)", "connect_timeout");
    } catch (const StreamLost& lost) {
        close();
        const std::string master = options_.sentinels.empty() ? "" : " (master " + host + ":" + std::to_string(port) + ")";
        throw QueueError("cannot connect to Redis at " + options_.redacted() + master + ": " + lost.what() +
                             (options_.socket.empty() ? " (is the server running? check host and port)"
                                                      : " (is the server running? check the socket path)"),
                         true);
    }
}

// The sentinels' answer may be stale (a failover under way, or the old master back as a replica): a
// master that is not one is a transient failure, and the retry asks the sentinels again.
void Connection::check_master_role() {
    const Reply role = command({"ROLE"});
    if (!role.elements.empty() && role.elements.front().text == "master") return;
    const std::string is = role.elements.empty() ? "no role" : role.elements.front().text;
    close();
    throw QueueError("the master the sentinels of " + options_.redacted() + " named is a " + is +
                         " now (a failover is under way)",
                     true);
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
    if (!options_.sentinels.empty()) check_master_role();
    // TLS 1.3 says that the server refused our certificate only in answer to the first request: make one,
    // so that the refusal is this connection's error, not a later command's.
    else if (options_.tls && options_.password.empty() && options_.db == 0) command({"PING"});
}

void Connection::reconnect() { open(); }

void Connection::throw_connection_lost(std::string_view during, std::string_view reason) {
    // A plain-text session that a server closes before it said a word: most likely a port that takes TLS.
    const bool maybe_tls_port = !answered_ && !options_.tls && options_.socket.empty();
    close();
    throw QueueError("Redis connection to " + options_.redacted() + " lost during " + std::string(during) + ": " +
                         std::string(reason.empty() ? "connection closed" : reason) +
                         (maybe_tls_port ? " (closed before the server's first answer: if the port takes TLS only, "
                                           "write rediss://)"
                                         : ""),
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
    if (!stream_) throw QueueError("Redis connection to " + options_.redacted() + " is closed", true);
    append_command(output_, argv);
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
    if (!stream_) throw QueueError("Redis connection to " + options_.redacted() + " is closed", true);
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
    while (output_sent_ < output_.size()) {
        StreamIo io;
        try {
            io = stream_->write(output_.data() + output_sent_, output_.size() - output_sent_);
        } catch (const StreamLost& lost) {
            throw_connection_lost("a pipelined write", lost.what());
        }
        output_sent_ += io.bytes;
        if (io.bytes == 0)
            wait_for_socket(io.wait, options_.write_timeout, "a write", config::option(OptionId::write_timeout).cli);
    }
    output_.clear();
    output_sent_ = 0;
}

bool Connection::read_some(short& wait_events) {
    char buffer[16 * 1024];
    StreamIo io;
    try {
        io = stream_->read(buffer, sizeof buffer);
    } catch (const StreamLost& lost) {
        throw_connection_lost("a read", lost.what());
    }
    if (io.bytes == 0) {
        wait_events = io.wait;
        return false;
    }
    // A TLS record (an alert 0x15, a handshake 0x16) where a reply should start: this is a TLS port.
    if (!answered_ && (buffer[0] == 0x15 || buffer[0] == 0x16)) {
        close();
        throw UsageError("Redis at " + options_.redacted() + " answered in TLS: the port takes TLS only; "
                         "write rediss:// (with ssl-ca=PATH for a private CA)");
    }
    answered_ = true;
    if (redisReaderFeed(reader_.get(), buffer, io.bytes) != REDIS_OK) throw std::bad_alloc();
    return true;
}

void* Connection::next_reply(milliseconds block) {
    const milliseconds timeout = options_.read_timeout.count() == 0 ? milliseconds(0) : options_.read_timeout + block;
    const auto answer_due = steady_clock::now() + block;
    for (;;) {
        void* raw = nullptr;
        if (redisReaderGetReply(reader_.get(), &raw) != REDIS_OK)
            throw_connection_lost("a read", std::string("protocol error: ") + reader_->errstr);
        if (raw != nullptr) return raw;
        // A plain socket is read once poll says so; a TLS stream may hold a record read in part.
        short wait = POLLIN;
        if (stream_->has_buffered() && read_some(wait)) continue;
        const std::string& flag = config::option(OptionId::read_timeout).cli;
        wait_for_socket(wait, timeout, "a read", flag, answer_due);
        while (!read_some(wait)) wait_for_socket(wait, timeout, "a read", flag, answer_due);
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
        pollfd socket{stream_->fd(), events, 0};
        const int ready = ::poll(&socket, 1, static_cast<int>(stop_poll.count()));
        // Ready, or an error or hang-up: the read or write that follows tells which.
        if (ready > 0) return;
        if (ready < 0 && errno != EINTR) throw_connection_lost(during, std::strerror(errno));
        const auto now = steady_clock::now();
        const auto waited = std::chrono::duration_cast<milliseconds>(now - started);
        if (stop_requested()) {
            if (!stop_seen) stop_seen = std::max(now, answer_due);
            if (now - *stop_seen >= stop_grace) {
                close();
                throw Interrupted("stopped by a signal while Redis at " + options_.redacted() +
                                  " had not answered for " + describe_duration(waited) + " during " + std::string(during));
            }
        }
        if (timeout.count() > 0 && waited >= timeout) {
            close();
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
        Connection connection(std::move(options));
        // Said nothing yet (no password, database 0): a PING shows now whether this is a Redis that answers.
        if (!connection.answered_) connection.command({"PING"});
        return connection;
    } catch (const QueueError& error) {
        // Nothing has been written yet, and waiting out a retry budget would only hide the cause.
        if (error.is_transient()) throw UsageError(error.what());
        throw;
    }
}

}  // namespace rowpump::redis
