#pragma once
// Decides, for each row, which queue list it goes to and when it is due. Its inputs are computed by
// the server beside the row (see ComputedColumn), so types and time zones are the server's.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/job.hpp"
#include "rowpump/page.hpp"

namespace rowpump {

// "high:100,mid:10,low": levels highest first, each name:min; the last may omit its minimum and takes
// every other row. Throws UsageError naming the bad part.
std::vector<PriorityLevel> parse_priority_levels(const std::string& text);
// Levels given some other way (a job file's list): decreasing thresholds, the last level's aside.
void check_priority_order(const std::vector<PriorityLevel>& levels);

class Router {
public:
    // Adds the computed values routing needs to `read` (before plan_read). `celery_priority_column`:
    // TaskSpec's (empty: none), a Celery message's own priority.
    static void request_inputs(const RouteSpec& route, const std::string& celery_priority_column, ReadSpec& read);

    // `plan` must come from a spec that went through request_inputs with the same column. Throws UsageError
    // for a due column that is not a date or time, priority levels without a column, or a Celery priority
    // column that is not an integer.
    Router(const RouteSpec& route, const std::string& celery_priority_column, const ReadPlan& plan);

    // Level index (0 = highest) and due time of one row; due_ms is 0 for a ready task. With a Celery
    // priority column, priority_level is the row's priority, 0..9 (NULL: 0); a value outside that throws
    // config::OptionFailure naming the row's key and the column (the page is then not written).
    void route(const Page& page, std::size_t row, Message& message,
               std::chrono::system_clock::time_point now) const;
    // Where the key's columns sit in a page row (PageSql::key_positions) and their names: an error about a
    // row then names its key. Without them it names none.
    void name_rows_by(std::vector<std::size_t> key_positions, std::vector<std::string> key_names);
    // Whether priority_level is each row's Celery priority.
    bool routes_celery_priority() const { return celery_priority_position_.has_value(); }

private:
    // "(id) = (17)": the row's key, for an error about the row.
    std::string key_text(const Page& page, std::size_t row) const;
    // The row's Celery priority, 0..9; throws config::OptionFailure outside it.
    int celery_priority(const Page& page, std::size_t row) const;

    RouteSpec route_;
    std::optional<std::size_t> priority_position_;
    std::optional<std::size_t> due_position_;
    std::string celery_priority_column_;
    std::optional<std::size_t> celery_priority_position_;
    std::vector<std::size_t> key_positions_;  // name_rows_by's
    std::vector<std::string> key_names_;
};

}  // namespace rowpump
