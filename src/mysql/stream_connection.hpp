#pragma once
// The streaming read path, on MariaDB Connector/C (the C library Connector/C++ itself runs on): a SELECT
// goes through the text protocol, unbuffered, and each row's cells reach the caller as pointers into the
// driver's row buffer. Connector/C++ copied every value into a std::string first and buffered the whole
// result. The driver stays in stream_connection.cpp: callers see only rowpump's own types.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mysql/connection.hpp"
#include "mysql/retrying_session.hpp"
#include "retry.hpp"
#include "rowpump/options.hpp"

namespace rowpump::mysql {

// One row as the server sent it: cell i is nullopt-like (data == nullptr) for NULL. Valid only during the
// callback that receives it.
class RowCells {
public:
    RowCells(const char* const* data, const unsigned long* lengths, std::size_t count)
        : data_(data), lengths_(lengths), count_(count) {}
    std::size_t size() const { return count_; }
    bool is_null(std::size_t i) const { return data_[i] == nullptr; }
    std::string_view operator[](std::size_t i) const { return {data_[i], lengths_[i]}; }

private:
    const char* const* data_;
    const unsigned long* lengths_;
    std::size_t count_;
};

class StreamConnection : public RetryingSession<StreamConnection> {
public:
    // Connects at once, with the options' timeouts and statement limit; throws like Connection.
    explicit StreamConnection(MySqlOptions options);
    ~StreamConnection();
    StreamConnection(StreamConnection&&) noexcept;
    StreamConnection& operator=(StreamConnection&&) noexcept;

    // Runs `sql` with its `?` placeholders replaced by `params` as escaped literals (inline_params.hpp) and
    // calls `on_row` for each row as it arrives. A failure part-way throws; the rows already handed over
    // are the caller's to discard.
    void for_each_row(const std::string& sql, const std::vector<Param>& params,
                      const std::function<void(const RowCells&)>& on_row);

    // The same statement, pulled a row at a time: begin_rows sends it, next_row returns each row (valid
    // until the next call) and nullopt at its end, which closes it. The caller may stop before the end:
    // the statement stays open, the server waiting to send the rest, until end_rows, or until any other
    // use of the connection ends it first (by draining it). A failure part-way throws as for_each_row.
    void begin_rows(const std::string& sql, const std::vector<Param>& params);
    std::optional<RowCells> next_row();
    bool rows_open() const;
    // How end_rows ends a statement with rows unread: `drain` reads and drops them and keeps the session;
    // `drop` closes the session (reopened at its next use), so the server stops at once, costing a
    // reconnect instead of reading the rest. A pinned session (a consistent snapshot) always drains.
    enum class EndRows { drain, drop };
    void end_rows(EndRows how);

    // retrying(action), as Connection's: transient failures are retried within options().retry_budget,
    // on a new session each time (a stream cut off midway leaves its session unusable).
    const MySqlOptions& options() const { return options_; }

    // START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY: every later read of this session sees the
    // table as it was now. From here on the session is pinned: its snapshot dies with it, so a failure
    // that retrying() would answer with a new session is final instead, and says why.
    void start_consistent_snapshot();
    // A ping, so that an idle session (a paused copy) is not closed by the server's wait_timeout; a
    // session that is gone already is reopened by the next page, as after any loss. An open statement
    // (begin_rows) is drained first.
    void keep_alive();

private:
    friend class RetryingSession<StreamConnection>;
    struct Session;
    void open();
    void recover_from(const Error& error, int attempt, const RetryDeadline& deadline);
    void run(const std::string& sql);
    void send(const std::string& sql, const std::vector<Param>& params);
    [[noreturn]] void fail();

    MySqlOptions options_;
    std::unique_ptr<Session> session_;
    bool pinned_ = false;  // holds a consistent snapshot: never reopened
};

}  // namespace rowpump::mysql
