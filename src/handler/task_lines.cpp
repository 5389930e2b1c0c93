#include "handler/task_lines.hpp"

#include <charconv>
#include <cmath>

#include "encode/embedded_json.hpp"
#include "encode/json_string.hpp"
#include "rowpump/error.hpp"

namespace rowpump::handler {

namespace {

std::string_view trim(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Splits "word rest" at the first space: the word, and the rest trimmed.
std::pair<std::string_view, std::string_view> first_word(std::string_view text) {
    const std::size_t space = text.find_first_of(" \t");
    if (space == std::string_view::npos) return {text, {}};
    return {text.substr(0, space), trim(text.substr(space))};
}

// "2.5" -> 2500 ms; nullopt when `word` is not a non-negative number of seconds up to a year.
std::optional<std::chrono::milliseconds> seconds(std::string_view word) {
    double value = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (error != std::errc() || end != word.data() + word.size() || !std::isfinite(value) || value < 0 ||
        value > 366.0 * 24 * 3600)
        return std::nullopt;
    return std::chrono::milliseconds(static_cast<long long>(std::llround(value * 1000)));
}

std::string reason_or(std::string_view reason, const char* fallback) {
    return reason.empty() ? std::string(fallback) : std::string(reason);
}

}  // namespace

void append_task_line(const TaskContext& task, std::string& out) {
    out += "{\"id\":";
    out += task.id == 0 ? std::string("null") : std::to_string(task.id);
    out += ",\"attempt\":";
    out += std::to_string(task.attempt);
    out += ",\"queue\":";
    append_json_string(task.queue, out);
    out += ",\"payload\":";
    const std::size_t start = out.size();
    try {
        append_embedded_json("payload", task.payload, out);
    } catch (const Error&) {
        out.resize(start);
        append_json_string(task.payload, out);
    }
    out += "}\n";
}

std::optional<TaskResult> parse_result_line(std::string_view line) {
    const auto [verb, rest] = first_word(trim(line));
    if (verb == "ok" && rest.empty()) return TaskResult::ok();
    if (verb == "fail") return TaskResult::fail(reason_or(rest, "its handler answered fail"));
    if (verb == "dead") return TaskResult::dead(reason_or(rest, "its handler answered dead"));
    if (verb != "retry") return std::nullopt;
    const auto [maybe_delay, after] = first_word(rest);
    if (const auto delay = seconds(maybe_delay); delay && !maybe_delay.empty())
        return TaskResult::retry(*delay, reason_or(after, "its handler asked for a retry"));
    // No delay given: the queue's own backoff, as for fail.
    return TaskResult::fail(reason_or(rest, "its handler asked for a retry"));
}

}  // namespace rowpump::handler
