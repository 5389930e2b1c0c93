#include "throttle/external_checks.hpp"

#include "config/option_error.hpp"
#include "config/option_schema.hpp"
#include "rowpump/error.hpp"

namespace rowpump::throttle {

namespace {

constexpr auto ask_interval = std::chrono::seconds(1);
// Each ask within this: a throttler that does not answer holds reading, and the gate's look goes on.
constexpr auto ask_deadline = std::chrono::milliseconds(1000);

MySqlOptions probe_options(const MySqlOptions& primary) {
    MySqlOptions options = primary;
    options.read_timeout = options.write_timeout = std::chrono::seconds(5);
    options.retry_budget = std::chrono::seconds(0);
    return options;
}

}  // namespace

ThrottleQuery::ThrottleQuery(const MySqlOptions& primary, std::string sql)
    : sql_(std::move(sql)), connection_(probe_options(primary)) {
    try {
        mysql::Rows rows = connection_.query(sql_);
        if (rows.column_count() == 0)
            throw config::OptionError({config::OptionId::throttle_query, " returns no result: give a SELECT whose "
                                                                          "first cell is 0 to go on, else to hold"});
    } catch (const DbError& error) {
        throw config::OptionError({config::OptionId::throttle_query, " fails on the source server: " +
                                                                          std::string(error.what())});
    }
}

std::optional<std::string> ThrottleQuery::check(std::chrono::steady_clock::time_point now) {
    if (now < next_) return last_;
    next_ = now + ask_interval;
    last_ = ask();
    return last_;
}

std::optional<std::string> ThrottleQuery::ask() {
    try {
        if (broken_) connection_.reconnect();
        broken_ = false;
        mysql::Rows rows = connection_.query(sql_);
        if (!rows.next() || rows.is_null(1)) return std::nullopt;  // no row, NULL: nothing says hold
        const std::string& cell = rows.text(1);
        if (cell.find_first_not_of("0.") == std::string::npos && !cell.empty()) return std::nullopt;
        return "throttle query returned " + cell;
    } catch (const Error& error) {
        broken_ = true;
        return std::string("throttle query failed: ") + error.what();
    }
}

ThrottleHttp::ThrottleHttp(std::string url)
    : url_(std::move(url)), parsed_(http::parse_status_url(url_, config::option(config::OptionId::throttle_http).cli)) {}

std::optional<std::string> ThrottleHttp::check(std::chrono::steady_clock::time_point now) {
    if (now < next_) return last_;
    next_ = now + ask_interval;
    const http::StatusAnswer answer = http::check_status(parsed_, ask_deadline);
    if (answer.status == 200) last_.reset();
    else if (answer.status != 0) last_ = url_ + " answered " + std::to_string(answer.status);
    else last_ = url_ + ": " + answer.problem;
    return last_;
}

}  // namespace rowpump::throttle
