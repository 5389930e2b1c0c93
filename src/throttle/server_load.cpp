#include "throttle/server_load.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>

#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

std::vector<LoadLimit> parse_load_limits(const std::string& text, const std::string& flag) {
    std::vector<LoadLimit> limits;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, end - start);
        const auto bad = [&](const std::string& why) {
            return UsageError(flag + " '" + text + "': " + why + " in '" + part +
                              "'; give VAR=N[,VAR=N], e.g. Threads_running=25");
        };
        const auto equals = part.find('=');
        if (equals == std::string::npos) throw bad("no '='");
        LoadLimit limit{part.substr(0, equals), 0};
        if (limit.variable.empty() || std::isdigit(static_cast<unsigned char>(limit.variable[0])) ||
            !std::all_of(limit.variable.begin(), limit.variable.end(),
                         [](unsigned char c) { return std::isalnum(c) || c == '_'; }))
            throw bad("a status variable's name is letters, digits and '_'");
        const std::string value = part.substr(equals + 1);
        std::size_t used = 0;
        try {
            limit.limit = std::stod(value, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (value.empty() || used != value.size() || limit.limit < 0) throw bad("the limit must be a number >= 0");
        limits.push_back(std::move(limit));
        start = end + 1;
    }
    return limits;
}

namespace throttle {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// A status value as a number: digits, a sign, a point, an exponent. Not "ON", "" (Ssl_cipher without
// TLS), a date in a load status, nor what strtod would also take ("inf", "0x1f").
std::optional<double> status_number(const std::string& text) {
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-')) return std::nullopt;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// The first limit a value is over. A value that is no longer a number (it was one when the run started)
// counts as over when `unknown_is_over`: the max limits, never the critical ones.
std::optional<std::string> first_over(const std::vector<LoadLimit>& limits,
                                      const std::map<std::string, std::string>& values, bool unknown_is_over) {
    for (const auto& limit : limits) {
        const auto value = values.find(lower(limit.variable));
        if (value == values.end()) continue;
        const auto measured = status_number(value->second);
        if (!measured && unknown_is_over) return limit.variable + " holds '" + value->second + "', not a number";
        if (!measured) continue;
        if (*measured > limit.limit) return limit.variable + " " + number(*measured) + " > " + number(limit.limit);
    }
    return std::nullopt;
}

// Each limit's variable is there and holds a number; else the UsageError that says which and what to give.
void check_limits(const std::vector<LoadLimit>& limits, const std::map<std::string, std::string>& values,
                  config::OptionId option) {
    for (const auto& limit : limits) {
        const std::string given = " " + limit.variable + "=" + number(limit.limit);
        const auto value = values.find(lower(limit.variable));
        if (value == values.end())
            throw config::OptionError({option, given + ": the server has no global status variable '" +
                                                   limit.variable +
                                                   "'; see SHOW GLOBAL STATUS for the names, e.g. Threads_running"});
        if (!status_number(value->second))
            throw config::OptionError({option, given + ": the global status variable " + limit.variable + " holds '" +
                                                   value->second +
                                                   "', not a number, so it has no limit to be over; give a numeric "
                                                   "one, e.g. Threads_running or Threads_connected"});
    }
}

}  // namespace

LoadProbe::LoadProbe(const MySqlOptions& primary, std::vector<LoadLimit> max_load, std::vector<LoadLimit> critical_load)
    : max_load_(std::move(max_load)), critical_load_(std::move(critical_load)) {
    if (!active()) return;
    // The names were checked to be letters, digits and '_' (parse_load_limits): safe inside quotes, and
    // SHOW takes no bound values.
    std::string names;
    for (const auto* limits : {&max_load_, &critical_load_})
        for (const auto& limit : *limits) names += (names.empty() ? "'" : ", '") + limit.variable + "'";
    sql_ = "SHOW GLOBAL STATUS WHERE Variable_name IN (" + names + ")";
    MySqlOptions options = primary;
    options.read_timeout = options.write_timeout = std::chrono::seconds(5);
    options.retry_budget = std::chrono::seconds(0);
    connection_.emplace(options);
    mysql::Rows rows = connection_->query(sql_);
    std::map<std::string, std::string> known;
    while (rows.next()) known[lower(rows.text(1))] = rows.text(2);
    check_limits(max_load_, known, config::OptionId::max_load);
    check_limits(critical_load_, known, config::OptionId::critical_load);
}

void LoadProbe::read(LoadReading& max, LoadReading& critical) {
    max.over.reset();
    critical.over.reset();
    if (!active()) return;
    std::map<std::string, std::string> values;
    try {
        if (broken_) connection_->reconnect();
        broken_ = false;
        mysql::Rows rows = connection_->query(sql_);
        while (rows.next()) values[lower(rows.text(1))] = rows.text(2);
    } catch (const Error& error) {
        broken_ = true;
        // The gate says "load " before it.
        if (!max_load_.empty()) max.over = std::string("cannot be read: ") + error.what();
        return;
    }
    max.over = first_over(max_load_, values, true);
    critical.over = first_over(critical_load_, values, false);
}

}  // namespace throttle

}  // namespace rowpump
