#include "backend/redis/redis_push_plan.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "backend/redis/redis_queue_keys.hpp"
#include "config/option_checks.hpp"
#include "redis/connection.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

using config::OptionId;

// ~1000 arguments per command keeps each command's reply quick and the server's other clients served,
// while a batch of 10k messages still needs only ten commands.
constexpr std::size_t max_arguments_per_command = 1000;
constexpr std::size_t max_score_digits = 20;  // "-9223372036854775808"

void check_priority_lists(const RedisQueueKeys& keys) {
    std::set<std::string> seen;
    for (const std::string& name : keys.priority_lists) {
        if (name.empty()) throw UsageError("empty priority list name: give each priority list a name");
        if (!seen.insert(name).second) throw UsageError("priority list '" + name + "' is named twice");
    }
}

std::string_view layout_name(QueueLayout layout) {
    return layout == QueueLayout::sidekiq ? "sidekiq" : layout == QueueLayout::celery ? "celery" : "rowpump";
}

// Sidekiq scores by Time#to_f seconds; three decimals carry the due time's milliseconds.
std::size_t write_seconds(char* out, std::int64_t ms) {
    char* end = std::to_chars(out, out + max_score_digits, ms / 1000).ptr;
    const auto fraction = static_cast<int>(ms % 1000);
    *end++ = '.';
    *end++ = static_cast<char>('0' + fraction / 100);
    *end++ = static_cast<char>('0' + fraction / 10 % 10);
    *end++ = static_cast<char>('0' + fraction % 10);
    return static_cast<std::size_t>(end - out);
}

// A key template given for lists that are not there would be a typo whose rows silently go elsewhere.
void check_list_key_use(const RedisQueueKeys& keys) {
    if (keys.priority_lists.empty() && keys.list_key != default_list_key)
        throw config::OptionError({"list key '" + keys.list_key + "' names priority lists, but no priority levels are "
                                   "given: add ", OptionId::priority_column, " and ", OptionId::priority, ", or drop ",
                                   OptionId::list_key, " (the ready list is ", OptionId::queue, ")"});
}

void check_distinct(const std::vector<std::string>& ready_keys, const std::string& delayed_key) {
    for (const std::string& key : ready_keys)
        if (key == delayed_key)
            throw config::OptionError({"key " + key + " would be both a priority list and the delayed set: change ",
                                       OptionId::list_key, " or ", OptionId::delayed_key});
}

// The score of a due time in the set's unit: "1700000000250" (ms) or "1700000000.25" (s).
std::size_t write_score(char* start, std::int64_t due_ms, DelayScore unit) {
    if (unit == DelayScore::milliseconds)
        return static_cast<std::size_t>(std::to_chars(start, start + max_score_digits, due_ms).ptr - start);
    char* end = std::to_chars(start, start + max_score_digits, due_ms / 1000).ptr;
    std::int64_t fraction = due_ms % 1000;
    if (fraction != 0) {
        *end++ = '.';
        for (std::int64_t unit_digit = 100; fraction != 0; unit_digit /= 10) {
            *end++ = static_cast<char>('0' + fraction / unit_digit);
            fraction %= unit_digit;
        }
    }
    return static_cast<std::size_t>(end - start);
}

void expect_type(Connection& connection, const std::string& key, std::string_view expected) {
    const std::string type = connection.command({"TYPE", key}).text;
    if (type == expected || type == "none") return;
    const std::string noun = expected == "zset" ? "a sorted set (zset)" : expected == "set" ? "a set" : "a list";
    throw config::OptionError({"key " + key + " is a " + type + ", expected " + noun + ": choose another ", OptionId::queue});
}

}  // namespace

PushPlan::PushPlan(const RedisQueueKeys& keys)
    : layout_(keys.layout),
      push_command_(keys.push == PushSide::left || keys.layout != QueueLayout::rowpump ? "LPUSH" : "RPUSH"),
      delayed_key_(keys.layout == QueueLayout::sidekiq ? sidekiq_schedule_set : redis::delayed_key(keys.delayed_key, keys.queue)),
      queue_(keys.queue),
      delay_score_(keys.delay_score),
      tagged_(keys.layout == QueueLayout::rowpump && keys.delayed_members == DelayedMembers::tagged) {
    check_priority_lists(keys);
    if (layout_ != QueueLayout::rowpump) {
        const std::string format(layout_name(layout_));
        config::check_priority_fits_format(format, !keys.priority_lists.empty());
        config::check_redis_names_fit_format(keys.names_given, format);
    }
    check_list_key_use(keys);
    if (layout_ == QueueLayout::sidekiq) ready_keys_.push_back(sidekiq_queue_list(keys.queue));
    else if (layout_ == QueueLayout::celery && keys.celery_priority_per_row)
        for (const unsigned step : {0u, 3u, 6u, 9u}) ready_keys_.push_back(celery_priority_list(keys.queue, step));
    else if (layout_ == QueueLayout::celery) ready_keys_.push_back(celery_priority_list(keys.queue, keys.celery_priority));
    else if (keys.priority_lists.empty()) ready_keys_.push_back(ready_list(keys.queue));
    for (const std::string& name : keys.priority_lists) ready_keys_.push_back(list_key(keys.list_key, keys.queue, name));
    check_distinct(ready_keys_, delayed_key_);
}

void PushPlan::check_key_types(Connection& connection) const {
    for (const std::string& key : ready_keys_) expect_type(connection, key, "list");
    expect_type(connection, delayed_key_, "zset");
    if (layout_ == QueueLayout::sidekiq) expect_type(connection, sidekiq_queues_set, "set");
}

std::size_t PushPlan::destination(const Message& message) const {
    // A Celery task carries its eta in its headers and waits in its worker, not in a set.
    if (message.due_ms > 0 && layout_ != QueueLayout::celery) return ready_keys_.size();
    if (ready_keys_.size() == 1) return 0;
    // A Celery message's own priority, 0..9: its step's list (0, 3, 6, 9), as kombu's _q_for_pri picks it.
    if (layout_ == QueueLayout::celery) return static_cast<std::size_t>(std::clamp(message.priority_level, 0, 9) / 3);
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
        if (destination(message) != ready_keys_.size()) continue;
        ++delayed;
        member_bytes += (tagged_ ? delayed_tag_size : 0) + message.payload.size();
    }
    // As Sidekiq's client does with every push: the set of queue names is what its Web UI and API list.
    if (layout_ == QueueLayout::sidekiq && delayed < batch.size()) {
        arguments_.insert(arguments_.end(), {"SADD", sidekiq_queues_set, queue_});
        commands_.push_back({0, 3});
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
                arguments_.emplace_back(start, layout_ == QueueLayout::sidekiq
                                                   ? write_seconds(start, batch[i].due_ms)
                                                   : write_score(start, batch[i].due_ms, delay_score_));
                score_end += max_score_digits;
                if (!tagged_) {
                    arguments_.push_back(batch[i].payload);
                    continue;
                }
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
