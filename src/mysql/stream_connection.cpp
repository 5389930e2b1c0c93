#include "mysql/stream_connection.hpp"

#include <mysql.h>

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <thread>

#include "log.hpp"
#include "mysql/inline_params.hpp"
#include "mysql/tls.hpp"

namespace rowpump::mysql {

namespace {

struct ResultFree {
    void operator()(MYSQL_RES* result) const noexcept { mysql_free_result(result); }
};

// As Connector/C++ does for the control plane (connection.cpp): enforce asks for TLS (dropped quietly
// when the server offers none: open() looks), a CA makes the library verify the chain,
// VERIFY_SERVER_CERT adds the host name check.
void set_tls_options(MYSQL* handle, const MySqlOptions& options) {
    if (options.ssl_mode == SslMode::disabled) return;
    const my_bool on = 1;
    mysql_options(handle, MYSQL_OPT_SSL_ENFORCE, &on);
    if (!options.ssl_ca.empty()) mysql_options(handle, MYSQL_OPT_SSL_CA, options.ssl_ca.c_str());
    if (!options.ssl_cert.empty()) mysql_options(handle, MYSQL_OPT_SSL_CERT, options.ssl_cert.c_str());
    if (!options.ssl_key.empty()) mysql_options(handle, MYSQL_OPT_SSL_KEY, options.ssl_key.c_str());
    if (options.ssl_mode == SslMode::verify_identity) mysql_options(handle, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &on);
}

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
    MYSQL* handle = nullptr;
    explicit Session(MYSQL* opened) : handle(opened) {}
    ~Session() { mysql_close(handle); }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
};

StreamConnection::StreamConnection(MySqlOptions options) : options_(std::move(options)) { open(); }
StreamConnection::~StreamConnection() = default;
StreamConnection::StreamConnection(StreamConnection&&) noexcept = default;
StreamConnection& StreamConnection::operator=(StreamConnection&&) noexcept = default;

void StreamConnection::keep_alive() {
    if (session_) mysql_ping(session_->handle);
}

void StreamConnection::open() {
    if (pinned_)
        throw Error("the session of a --consistent-snapshot reader of " + options_.redacted() +
                    " was lost, and its snapshot with it: run the backfill again");
    session_.reset();
    // The first call initialises the client library, which is not thread-safe.
    static std::once_flag library;
    std::call_once(library, [] { mysql_library_init(0, nullptr, nullptr); });
    MYSQL* handle = mysql_init(nullptr);
    if (handle == nullptr) throw std::bad_alloc();
    auto session = std::make_unique<Session>(handle);
    const unsigned connect_timeout = static_cast<unsigned>(options_.connect_timeout.count());
    const unsigned read_timeout = static_cast<unsigned>(options_.read_timeout.count());
    const unsigned write_timeout = static_cast<unsigned>(options_.write_timeout.count());
    mysql_options(handle, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
    if (read_timeout > 0) mysql_options(handle, MYSQL_OPT_READ_TIMEOUT, &read_timeout);
    if (write_timeout > 0) mysql_options(handle, MYSQL_OPT_WRITE_TIMEOUT, &write_timeout);
    mysql_options(handle, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    // A silent reconnect would lose the session's settings; retrying() opens a new session itself.
    // For fetch_row(): the blocking calls work as before on such a handle.
    mysql_options(handle, MYSQL_OPT_NONBLOCK, nullptr);
    const my_bool no_reconnect = 0;
    mysql_options(handle, MYSQL_OPT_RECONNECT, &no_reconnect);
    // "localhost" without a socket still means TCP here, as it does for Connector/C++'s tcp:// URLs.
    const unsigned protocol = options_.socket.empty() ? MYSQL_PROTOCOL_TCP : MYSQL_PROTOCOL_SOCKET;
    mysql_options(handle, MYSQL_OPT_PROTOCOL, &protocol);
    set_tls_options(handle, options_);
    if (!mysql_real_connect(handle, options_.socket.empty() ? options_.host.c_str() : "localhost",
                            options_.user.c_str(), options_.password.c_str(),
                            options_.database.empty() ? nullptr : options_.database.c_str(), options_.port,
                            options_.socket.empty() ? nullptr : options_.socket.c_str(), 0))
        throw_connect_error(static_cast<int>(mysql_errno(handle)), mysql_sqlstate(handle), mysql_error(handle),
                            options_);
    if (needs_tls(options_) && mysql_get_ssl_cipher(handle) == nullptr) throw_tls_not_offered(options_);
    session_ = std::move(session);
    apply_session_settings(options_, [this](const std::string& sql) { run(sql); });
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
    MYSQL* handle = session_->handle;
    if (mysql_real_query(handle, sql.data(), sql.size()) != 0)
        throw_server_error(static_cast<int>(mysql_errno(handle)), mysql_sqlstate(handle), mysql_error(handle), sql,
                           options_);
}

void StreamConnection::for_each_row(const std::string& sql, const std::vector<Param>& params,
                                    const std::function<void(const RowCells&)>& on_row) {
    if (!session_) open();
    MYSQL* handle = session_->handle;
    std::string escaped;
    const std::string text = inline_params(sql, params, [&](std::string_view value) {
        escaped.resize(value.size() * 2 + 1);
        const auto length = mysql_real_escape_string(handle, escaped.data(), value.data(),
                                                     static_cast<unsigned long>(value.size()));
        return "'" + escaped.substr(0, length) + "'";
    });
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
