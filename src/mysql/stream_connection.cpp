#include "mysql/stream_connection.hpp"

#include <mysql.h>

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "config/option_error.hpp"
#include "log.hpp"
#include "mysql/client_handle.hpp"
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
    ClientHandle handle;
};

StreamConnection::StreamConnection(MySqlOptions options) : options_(std::move(options)) { open(); }
StreamConnection::~StreamConnection() = default;
StreamConnection::StreamConnection(StreamConnection&&) noexcept = default;
StreamConnection& StreamConnection::operator=(StreamConnection&&) noexcept = default;

void StreamConnection::keep_alive() {
    if (session_) mysql_ping(session_->handle.get());
}

void StreamConnection::open() {
    if (pinned_)
        throw config::OptionFailure({"the session of a ", config::OptionId::consistent_snapshot,
                                     " reader of " + options_.redacted() +
                                         " was lost, and its snapshot with it: run the backfill again"});
    session_.reset();
    // Non-blocking, for fetch_row(): the reader waits on the socket its own way.
    session_ = std::make_unique<Session>(Session{open_client_handle(options_, true)});
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
    run("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
    pinned_ = true;
}

void StreamConnection::run(const std::string& sql) {
    if (!session_) open();
    run_text(session_->handle.get(), sql, options_);
}

void StreamConnection::for_each_row(const std::string& sql, const std::vector<Param>& params,
                                    const std::function<void(const RowCells&)>& on_row) {
    if (!session_) open();
    MYSQL* handle = session_->handle.get();
    const std::string text =
        inline_params(sql, params, [handle](std::string_view value) { return quote_string(handle, value); });
    run(text);
    std::unique_ptr<MYSQL_RES, ResultFree> result(mysql_use_result(handle));
    const auto fail = [&] {
        const int code = static_cast<int>(mysql_errno(handle));
        const std::string state = mysql_sqlstate(handle);
        const std::string message = mysql_error(handle);
        result.reset();    // before the session it reads from
        session_.reset();  // a stream cut off midway leaves the session unusable
        throw_server_error(code, state, message, sql, options_);
    };
    if (!result) {
        if (mysql_errno(handle) != 0) fail();
        return;  // not a SELECT
    }
    const std::size_t width = mysql_num_fields(result.get());
    while (MYSQL_ROW row = fetch_row(handle, result.get())) {
        on_row(RowCells(row, mysql_fetch_lengths(result.get()), width));
    }
    if (mysql_errno(handle) != 0) fail();
}

}  // namespace rowpump::mysql
