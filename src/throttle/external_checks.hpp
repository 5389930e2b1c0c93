#pragma once
// Throttles that others decide, as gh-ost's: --throttle-query (SQL on the source server whose first cell,
// when not 0, holds reading) and --throttle-http (a throttler such as freno; any answer but 200 holds it).
// Each is asked at most once a second, from the gate's looks; between two asks the last answer stands.
#include <chrono>
#include <optional>
#include <string>

#include "http/status_check.hpp"
#include "mysql/connection.hpp"

namespace rowpump::throttle {

class ThrottleQuery {
public:
    // Connects and runs the query once: SQL the server refuses, or a result without a cell, is a UsageError
    // (before a row is read).
    ThrottleQuery(const MySqlOptions& primary, std::string sql);
    // Why it holds reading now ("throttle query returned 1"); nullopt: it does not. A query that fails
    // holds it (the server cannot be asked), as a load that cannot be read does.
    std::optional<std::string> check(std::chrono::steady_clock::time_point now);
    const std::string& sql() const { return sql_; }

private:
    std::optional<std::string> ask();

    std::string sql_;
    mysql::Connection connection_;
    bool broken_ = false;
    std::chrono::steady_clock::time_point next_{};
    std::optional<std::string> last_;
};

class ThrottleHttp {
public:
    // Reads the URL (UsageError for one that is not http://HOST[:PORT]/PATH); asks nothing yet.
    explicit ThrottleHttp(std::string url);
    std::optional<std::string> check(std::chrono::steady_clock::time_point now);
    const std::string& url() const { return url_; }

private:
    std::string url_;
    http::StatusUrl parsed_;
    std::chrono::steady_clock::time_point next_{};
    std::optional<std::string> last_;
};

}  // namespace rowpump::throttle
