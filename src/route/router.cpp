#include "route/router.hpp"

#include <charconv>
#include <cmath>
#include <utility>
#include <string_view>

#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

const char* const priority_input = "rp_priority";
const char* const due_input = "rp_due";
const char* const celery_priority_input = "rp_celery_priority";
constexpr long long celery_max_priority = 9;  // kombu's virtual Channel.max_priority; its min_priority is 0

std::optional<double> parse_number(std::optional<std::string_view> text) {
    if (!text) return std::nullopt;
    double value = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc()) return std::nullopt;
    return value;
}

// The server computes a priority value as text; only numeric columns give text that compares as numbers.
bool is_numeric(ColumnKind kind) {
    switch (kind) {
        case ColumnKind::signed_integer:
        case ColumnKind::unsigned_integer:
        case ColumnKind::decimal:
        case ColumnKind::floating:
        case ColumnKind::bit:
        case ColumnKind::year:
            return true;
        default:
            return false;
    }
}

std::optional<std::size_t> computed_position(const ReadPlan& plan, const char* name) {
    for (std::size_t i = 0; i < plan.spec.computed.size(); ++i)
        if (plan.spec.computed[i].name == name) return plan.columns.size() + i;
    return std::nullopt;
}

}  // namespace

std::vector<PriorityLevel> parse_priority_levels(const std::string& text) {
    std::vector<PriorityLevel> levels;
    std::size_t start = 0;
    while (start <= text.size() && !text.empty()) {
        auto end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(start, end - start);
        const auto colon = item.find(':');
        PriorityLevel level{item.substr(0, colon), 0};
        if (level.name.empty()) throw UsageError("empty level name in priority levels '" + text + "'");
        if (colon != std::string::npos) {
            const std::string_view threshold = std::string_view(item).substr(colon + 1);
            const auto [number_end, error] =
                std::from_chars(threshold.data(), threshold.data() + threshold.size(), level.min);
            if (threshold.empty() || error != std::errc() || number_end != threshold.data() + threshold.size() ||
                !std::isfinite(level.min))
                throw UsageError("bad threshold in priority level '" + item + "': expected name:number");
        } else if (end != text.size()) {
            throw UsageError("priority level '" + item + "' needs a threshold (name:min); only the last may omit it");
        }
        levels.push_back(level);
        start = end + 1;
    }
    check_priority_order(levels);
    return levels;
}

void check_priority_order(const std::vector<PriorityLevel>& levels) {
    for (std::size_t i = 1; i + 1 < levels.size(); ++i)
        if (levels[i].min >= levels[i - 1].min)
            throw UsageError("priority levels must be given highest first, with decreasing thresholds");
}

void Router::request_inputs(const RouteSpec& route, const std::string& celery_priority_column, ReadSpec& read) {
    if (!route.priority_column.empty()) read.computed.push_back({priority_input, route.priority_column, ""});
    if (!celery_priority_column.empty()) read.computed.push_back({celery_priority_input, celery_priority_column, ""});
    // UNIX_TIMESTAMP reads the column in the session's time zone, exactly as the server sees it, but
    // returns NULL past 2038-01-19 (MariaDB before 11.5, 32-bit time): later due times count on from
    // 2038-01-01, which is exact unless the zone's UTC offset then differs from January's (DST).
    if (!route.due_column.empty())
        read.computed.push_back({due_input, route.due_column,
                                 "COALESCE(UNIX_TIMESTAMP({}), UNIX_TIMESTAMP('2038-01-01 00:00:00') + "
                                 "TIMESTAMPDIFF(MICROSECOND, '2038-01-01 00:00:00', {}) / 1000000)"});
}

Router::Router(const RouteSpec& route, const std::string& celery_priority_column, const ReadPlan& plan)
    : route_(route), celery_priority_column_(celery_priority_column) {
    if (!route.levels.empty() && route.priority_column.empty())
        throw config::OptionError({"priority levels need a priority column (", config::OptionId::priority_column, ")"});
    if (!route.priority_column.empty() && route.levels.size() < 2)
        throw config::OptionError({"priority routing needs at least two levels in ", config::OptionId::priority,
                                   ", e.g. high:100,mid:10,low"});
    if (!route.priority_column.empty()) {
        const Column& column = plan.table.column(route.priority_column);
        if (!is_numeric(column.kind))
            throw UsageError("priority column '" + route.priority_column + "' is " + column.column_type +
                             ": expected a numeric column (integer, DECIMAL, FLOAT or DOUBLE)");
    }
    if (!route.due_column.empty()) {
        const Column& column = plan.table.column(route.due_column);
        if (column.kind != ColumnKind::datetime && column.kind != ColumnKind::date)
            throw UsageError("due column '" + route.due_column + "' is " + column.column_type +
                             ": expected a DATETIME, TIMESTAMP or DATE column");
        if (route.delay.count() > 0) throw UsageError("choose either a fixed delay or a due column, not both");
    }
    priority_position_ = computed_position(plan, priority_input);
    due_position_ = computed_position(plan, due_input);
    if (!celery_priority_column.empty()) {
        const Column& column = plan.table.column(celery_priority_column);
        if (column.kind != ColumnKind::signed_integer && column.kind != ColumnKind::unsigned_integer)
            throw config::OptionError({config::OptionId::celery_priority_column, " '" + celery_priority_column +
                                           "' is " + column.column_type + ": expected an integer column (kombu "
                                           "reads a message's priority as an int, 0 to 9)"});
        celery_priority_position_ = computed_position(plan, celery_priority_input);
    }
}

void Router::name_rows_by(std::vector<std::size_t> key_positions, std::vector<std::string> key_names) {
    key_positions_ = std::move(key_positions);
    key_names_ = std::move(key_names);
}

std::string Router::key_text(const Page& page, std::size_t row) const {
    std::string names;
    std::string values;
    for (std::size_t i = 0; i < key_positions_.size(); ++i) {
        names += (i ? ", " : "") + key_names_[i];
        const auto value = page.value(row, key_positions_[i]);
        values += (i ? ", " : "") + (value ? std::string(*value) : std::string("NULL"));
    }
    return "(" + names + ") = (" + values + ")";
}

int Router::celery_priority(const Page& page, std::size_t row) const {
    const auto text = page.value(row, *celery_priority_position_);
    if (!text) return 0;  // none: kombu's default, the list Q
    long long value = -1;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size() || value < 0 || value > celery_max_priority)
        throw config::OptionFailure({"the row " + key_text(page, row) + " holds " + std::string(*text) + " in `" +
                                         celery_priority_column_ + "`, the column of ",
                                     config::OptionId::celery_priority_column,
                                     ", but a Celery priority is 0 to 9 (kombu would clamp it): fix the row; no job of "
                                     "its page was written, pages already written (by any worker) stay in the queue"});
    return static_cast<int>(value);
}

void Router::route(const Page& page, std::size_t row, Message& message,
                   std::chrono::system_clock::time_point now) const {
    message.priority_level = 0;
    message.due_ms = 0;
    if (priority_position_) {
        // A NULL or non-numeric value goes to the lowest level: it is never lost, only late.
        message.priority_level = static_cast<int>(route_.levels.size() - 1);
        if (auto value = parse_number(page.value(row, *priority_position_))) {
            for (std::size_t level = 0; level + 1 < route_.levels.size(); ++level) {
                if (*value >= route_.levels[level].min) {
                    message.priority_level = static_cast<int>(level);
                    break;
                }
            }
        }
    }
    if (celery_priority_position_) message.priority_level = celery_priority(page, row);
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    if (route_.delay.count() > 0) message.due_ms = now_ms + route_.delay.count();
    if (due_position_) {
        // A NULL due time means "now": the task is ready at once.
        if (auto seconds = parse_number(page.value(row, *due_position_)))
            message.due_ms = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(*seconds * 1000)));
    }
}

}  // namespace rowpump
