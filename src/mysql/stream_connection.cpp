#include "mysql/stream_connection.hpp"

#include <mysql.h>

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "config/option_error.hpp"
#include "log.hpp"
#include "mysql/client_handle.hpp"
#include "mysql/error_codes.hpp"
#include "mysql/inline_params.hpp"

namespace rowpump::mysql {

namespace {

struct ResultFree {
    void operator()(MYSQL_RES* result) const noexcept { mysql_free_result(result); }
};

// How long a reader that found the socket empty lets the server's rows pile up before it waits on the
// socket. A reader drains a socket faster than one server thread fills it, so waiting at once meant one
// sleep per 16 KB packet (about 11,000 in a 1M-row read), and every one of them was a wake-up the server
// paid for in its send path (sock_def_readable: 14% of mariadbd's CPU in a profile of `rowpump read`).
// A nap is the client's own timer: the server finds nobody to wake. With 250 us the reader sleeps about
// 1,500 times in that read, and the server's CPU for it fell by about a tenth (docs/DESIGN.md, "The data
// path"). A page ends at most one nap later than it would have.
constexpr std::chrono::microseconds nap_before_waiting{250};

// Waits as the driver asked (MYSQL_WAIT_* bits in `status`) and says what is ready, for *_cont().
int wait_for_socket(MYSQL* handle, int status) {
    if (status & MYSQL_WAIT_READ) std::this_thread::sleep_for(nap_before_waiting);
    pollfd socket{mysql_get_socket(handle), 0, 0};
    if (status & MYSQL_WAIT_READ) socket.events |= POLLIN;
    if (status & MYSQL_WAIT_WRITE) socket.events |= POLLOUT;
    if (status & MYSQL_WAIT_EXCEPT) socket.events |= POLLPRI;
    const int timeout_ms = (status & MYSQL_WAIT_TIMEOUT) ? static_cast<int>(mysql_get_timeout_value_ms(handle)) : -1;
    int ready;
    while ((ready = poll(&socket, 1, timeout_ms)) < 0 && errno == EINTR) {
    }
    if (ready == 0) return MYSQL_WAIT_TIMEOUT;
    // A failed poll, or a socket in error, hung up or closed: the driver's next read or write finds the error.
    if (ready < 0 || (socket.revents & (POLLERR | POLLHUP | POLLNVAL)))
        return status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE);
    int out = 0;
    if (socket.revents & POLLIN) out |= MYSQL_WAIT_READ;
    if (socket.revents & POLLOUT) out |= MYSQL_WAIT_WRITE;
    if (socket.revents & POLLPRI) out |= MYSQL_WAIT_EXCEPT;
    return out;
}

// mysql_fetch_row through the driver's non-blocking interface, so that the reader waits its own way.
MYSQL_ROW fetch_row(MYSQL* handle, MYSQL_RES* result) {
    MYSQL_ROW row = nullptr;
    int status = mysql_fetch_row_start(&row, result);
    while (status != 0) status = mysql_fetch_row_cont(&row, result, wait_for_socket(handle, status));
    return row;
}

}  // namespace

struct StreamConnection::Session {
    explicit Session(ClientHandle client) : handle(std::move(client)) {}
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    // A statement left open is cut off, not drained: the socket is shut first, so that freeing the result
    // finds its end at once instead of reading the rest of the rows, and closed with a reset (no linger):
    // a plain close leaves the client's side holding a full receive window, and the server waits on it
    // until net_write_timeout (seen: 60 s in "Writing to net", the table's metadata lock held).
    ~Session() {
        if (!result) return;
        const int socket = mysql_get_socket(handle.get());
        const linger reset{1, 0};
        ::setsockopt(socket, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        ::shutdown(socket, SHUT_RDWR);
        result.reset();
    }

    ClientHandle handle;
    std::unique_ptr<MYSQL_RES, ResultFree> result;  // the statement begin_rows left open, before the handle
    std::string sql;                                // its text without values, for errors
};

StreamConnection::StreamConnection(MySqlOptions options) : options_(std::move(options)) { open(); }
StreamConnection::~StreamConnection() = default;
StreamConnection::StreamConnection(StreamConnection&&) noexcept = default;
StreamConnection& StreamConnection::operator=(StreamConnection&&) noexcept = default;

void StreamConnection::keep_alive() {
    end_rows(EndRows::drain);
    if (session_) mysql_ping(session_->handle.get());
}

void StreamConnection::open() {
    if (pinned_)
        throw config::OptionFailure({"the session of a ", config::OptionId::consistent_snapshot,
                                     " reader of " + options_.redacted() +
                                         " was lost, and its snapshot with it: run the backfill again"});
    session_.reset();
    // Non-blocking, for fetch_row(): the reader waits on the socket its own way.
    session_ = std::make_unique<Session>(open_client_handle(options_, true));
    const ServerFlavor flavor = ServerFlavor::parse(server_version(session_->handle.get()));
    apply_session_settings(options_, flavor, [this](const std::string& sql) { run(sql); });
}

void StreamConnection::recover_from(const Error& error, int attempt, const RetryDeadline& deadline) {
    if (pinned_) {
        const auto* db_error = dynamic_cast<const DbError*>(&error);
        throw DbError(std::string(error.what()) +
                          "; a --consistent-snapshot reader cannot reconnect: its snapshot went with its session, "
                          "and a new one would see a later table than the other workers. Run the backfill again "
                          "(without --consistent-snapshot, readers reconnect and resume)",
                      db_error ? db_error->code() : 0, db_error ? db_error->sqlstate() : "HY000",
                      db_error ? db_error->query() : "");
    }
    // A stream cut off midway leaves its session unusable: always a new one.
    recover_session(error, attempt, deadline, [] { return false; }, [this] { open(); });
}

void StreamConnection::start_consistent_snapshot() {
    // Not a mysql::Transaction (transaction.hpp): a read-only snapshot held for the session's whole life on
    // the streaming driver, never committed; it ends with the session.
    end_rows(EndRows::drain);
    run("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
    pinned_ = true;
}

void StreamConnection::run(const std::string& sql) {
    if (session_ && session_->result) end_rows(EndRows::drain);
    if (!session_) open();
    run_text(session_->handle.get(), sql, options_);
}

void StreamConnection::send(const std::string& sql, const std::vector<Param>& params) {
    if (session_ && session_->result) end_rows(EndRows::drain);
    if (!session_) open();
    MYSQL* handle = session_->handle.get();
    run(inline_params(sql, params, [handle](std::string_view value) { return quote_string(handle, value); }));
    session_->sql = sql;
    session_->result.reset(mysql_use_result(handle));
    if (!session_->result && mysql_errno(handle) != 0) fail();
}

void StreamConnection::fail() {
    MYSQL* handle = session_->handle.get();
    const int code = static_cast<int>(mysql_errno(handle));
    const std::string state = mysql_sqlstate(handle);
    const std::string message = mysql_error(handle);
    const std::string sql = std::move(session_->sql);
    session_.reset();  // a stream cut off midway leaves the session unusable
    // KILL QUERY stops the statement and leaves the session: to a reader, which reads on after its last
    // page on a new session, it is one more way to lose a stream, not a reason to give up.
    if (code == codes::query_interrupted)
        throw DbError("MySQL stopped the reader's statement (KILL QUERY): " + redact_url(message), code, state, sql,
                      true);
    throw_server_error(code, state, message, sql, options_);
}

void StreamConnection::for_each_row(const std::string& sql, const std::vector<Param>& params,
                                    const std::function<void(const RowCells&)>& on_row) {
    begin_rows(sql, params);
    while (auto row = next_row()) on_row(*row);
}

void StreamConnection::begin_rows(const std::string& sql, const std::vector<Param>& params) { send(sql, params); }

bool StreamConnection::rows_open() const { return session_ && session_->result; }

std::optional<RowCells> StreamConnection::next_row() {
    if (!rows_open()) return std::nullopt;  // not a SELECT, or read to its end
    MYSQL* handle = session_->handle.get();
    MYSQL_RES* result = session_->result.get();
    if (MYSQL_ROW row = fetch_row(handle, result))
        return RowCells(row, mysql_fetch_lengths(result), mysql_num_fields(result));
    if (mysql_errno(handle) != 0) fail();
    session_->result.reset();  // the whole result was read: the session is ready for the next statement
    return std::nullopt;
}

void StreamConnection::end_rows(EndRows how) {
    if (!rows_open()) return;
    if (how == EndRows::drop && !pinned_) {
        session_.reset();  // ~Session cuts the statement off
        return;
    }
    try {
        while (next_row()) {
        }
    } catch (const std::exception& error) {
        // The session went with the failure (fail()); its next use reopens it, or says why it cannot.
        log().debug("ending a statement early failed: {}", error.what());
    }
}

}  // namespace rowpump::mysql
