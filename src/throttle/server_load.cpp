#include "throttle/server_load.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

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

std::optional<std::string> first_over(const std::vector<LoadLimit>& limits, const std::map<std::string, double>& values) {
    for (const auto& limit : limits) {
        const auto value = values.find(lower(limit.variable));
        if (value != values.end() && value->second > limit.limit)
            return limit.variable + " " + number(value->second) + " > " + number(limit.limit);
    }
    return std::nullopt;
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
    std::map<std::string, double> known;
    while (rows.next()) known[lower(rows.text(1))] = 0;
    for (const auto* limits : {&max_load_, &critical_load_})
        for (const auto& limit : *limits)
            if (!known.count(lower(limit.variable)))
                throw UsageError("--max-load/--critical-load: the server has no global status variable '" +
                                 limit.variable + "'; see SHOW GLOBAL STATUS for the names, e.g. Threads_running");
}

void LoadProbe::read(LoadReading& max, LoadReading& critical) {
    max.over.reset();
    critical.over.reset();
    if (!active()) return;
    std::map<std::string, double> values;
    try {
        if (broken_) connection_->reconnect();
        broken_ = false;
        mysql::Rows rows = connection_->query(sql_);
        while (rows.next()) values[lower(rows.text(1))] = rows.real(2);
    } catch (const Error& error) {
        broken_ = true;
        if (!max_load_.empty()) max.over = std::string("the load cannot be read: ") + error.what();
        return;
    }
    max.over = first_over(max_load_, values);
    critical.over = first_over(critical_load_, values);
}

}  // namespace throttle

}  // namespace rowpump
