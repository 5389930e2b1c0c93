#pragma once
// Decides, for each row, which queue list it goes to and when it is due. Its inputs are computed by
// the server beside the row (see ComputedColumn), so types and time zones are the server's.
#include <chrono>
#include <optional>

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
    // Adds the computed values routing needs to `read` (before plan_read).
    static void request_inputs(const RouteSpec& route, ReadSpec& read);

    // `plan` must come from a spec that went through request_inputs. Throws UsageError for a due column
    // that is not a date or time, or priority levels without a column.
    Router(const RouteSpec& route, const ReadPlan& plan);

    // Level index (0 = highest) and due time of one row; due_ms is 0 for a ready task.
    void route(const Page& page, std::size_t row, Message& message,
               std::chrono::system_clock::time_point now) const;

private:
    RouteSpec route_;
    std::optional<std::size_t> priority_position_;
    std::optional<std::size_t> due_position_;
};

}  // namespace rowpump
