#include "redis/push_plan.hpp"

#include <charconv>
#include <set>

#include "redis/connection.hpp"
#include "redis/queue_keys.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

// ~1000 arguments per command keeps each command's reply quick and the server's other clients served,
// while a batch of 10k messages still needs only ten commands.
constexpr std::size_t max_arguments_per_command = 1000;
constexpr std::size_t max_score_digits = 20;  // "-9223372036854775808"

void check_priority_lists(const SinkSpec& spec) {
    std::set<std::string> seen;
    for (const std::string& name : spec.priority_lists) {
        if (name.empty()) throw UsageError("empty priority list name: give each priority list a name");
        if (!seen.insert(name).second) throw UsageError("priority list '" + name + "' is named twice");
    }
}

void expect_type(Connection& connection, const std::string& key, std::string_view expected) {
    const std::string type = connection.command({"TYPE", key}).text;
    if (type == expected || type == "none") return;
    const std::string noun = expected == "zset" ? "a sorted set (zset)" : "a list";
    throw UsageError("key " + key + " is a " + type + ", expected " + noun + ": choose another --queue");
}

}  // namespace

PushPlan::PushPlan(const SinkSpec& spec)
    : push_command_(spec.push == PushSide::left ? "LPUSH" : "RPUSH"), delayed_key_(delayed_set(spec.queue)) {
    check_priority_lists(spec);
    if (spec.priority_lists.empty()) ready_keys_.push_back(ready_list(spec.queue));
    for (const std::string& name : spec.priority_lists) ready_keys_.push_back(priority_list(spec.queue, name));
}

void PushPlan::check_key_types(Connection& connection) const {
    for (const std::string& key : ready_keys_) expect_type(connection, key, "list");
    expect_type(connection, delayed_key_, "zset");
}

std::size_t PushPlan::destination(const Message& message) const {
    if (message.due_ms > 0) return ready_keys_.size();
    if (ready_keys_.size() == 1) return 0;
    if (message.priority_level < 0 || static_cast<std::size_t>(message.priority_level) >= ready_keys_.size())
        throw UsageError("priority level " + std::to_string(message.priority_level) + " has no list: " +
                         std::to_string(ready_keys_.size()) + " priority lists are configured");
    return static_cast<std::size_t>(message.priority_level);
}

void PushPlan::plan(const std::vector<Message>& batch, DelayedTag first_tag) {
    arguments_.clear();
    commands_.clear();
    std::size_t delayed = 0;
    std::size_t member_bytes = 0;
    for (const Message& message : batch) {
        if (message.due_ms <= 0) continue;
        ++delayed;
        member_bytes += delayed_tag_size + message.payload.size();
    }
    // Neither buffer grows below, so views into them stay valid.
    scores_.assign(delayed * max_score_digits, '\0');
    members_.clear();
    members_.reserve(member_bytes);
    std::size_t score_end = 0;

    for (std::size_t i = 0; i < batch.size();) {
        const std::size_t target = destination(batch[i]);
        const bool is_delayed = target == ready_keys_.size();
        const std::size_t first = arguments_.size();
        arguments_.push_back(is_delayed ? std::string_view("ZADD") : push_command_);
        arguments_.push_back(is_delayed ? delayed_key_ : ready_keys_[target]);
        for (; i < batch.size() && arguments_.size() - first < max_arguments_per_command + 2 &&
               destination(batch[i]) == target;
             ++i) {
            if (is_delayed) {
                char* start = scores_.data() + score_end;
                const auto written = std::to_chars(start, start + max_score_digits, batch[i].due_ms);
                arguments_.emplace_back(start, static_cast<std::size_t>(written.ptr - start));
                score_end += max_score_digits;
                const std::size_t member_start = members_.size();
                append_delayed_tag(members_, {first_tag.writer, first_tag.sequence + i});
                members_.append(batch[i].payload);
                arguments_.emplace_back(members_.data() + member_start, members_.size() - member_start);
            } else {
                arguments_.push_back(batch[i].payload);
            }
        }
        commands_.push_back({first, arguments_.size() - first});
    }
}

std::span<const std::string_view> PushPlan::command(std::size_t index) const {
    const auto& [first, count] = commands_.at(index);
    return std::span<const std::string_view>(arguments_).subspan(first, count);
}

}  // namespace rowpump::redis
