#pragma once
// The line protocol between rowpump and a consumer's handler process (docs/consumers.md, "Handlers"):
// a task goes to the handler as one JSON line, and --pipe handlers answer each with one result line.
#include <optional>
#include <string>
#include <string_view>

#include "rowpump/consumer.hpp"

namespace rowpump::handler {

// Appends {"id":...,"attempt":...,"queue":"...","payload":...} and a newline. The payload is the JSON
// value it is, compacted onto the line with its numbers as written, or a JSON string when it is not JSON
// (a template's plain text). The id is the MySQL row id, or null for a Redis task (its payload is its
// identity).
void append_task_line(const TaskContext& task, std::string& out);

// One result line, without its newline (a trailing \r is allowed):
//   ok | retry [SECONDS] [reason] | fail [reason] | dead [reason]
// ("retry" without SECONDS waits the queue's backoff, as fail does; both count toward max attempts)
// nullopt when the line is none of these.
std::optional<TaskResult> parse_result_line(std::string_view line);

}  // namespace rowpump::handler
