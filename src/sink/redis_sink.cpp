// Redis lists (and a sorted set for delayed tasks), written with pipelined variadic commands.
//
// Keys for queue Q (DESIGN, "Queues"): ready tasks go to the list Q, or to Q:p:<name> when priority
// lists are given; delayed tasks go to the sorted set Q:delayed, scored by their due time in Unix ms.
// A sorted set keeps one member per distinct value: identical payloads due at any time collapse into one
// task (the last score wins). Payloads that must stay distinct need something unique in them (the key).
#include <charconv>
#include <chrono>
#include <set>
#include <span>

#include "redis/connection.hpp"
#include "redis/queue_keys.hpp"
#include "rowpump/error.hpp"
#include "sink/sinks.hpp"

namespace rowpump {

namespace {

// ~1000 arguments per command keeps each command's reply quick and the server's other clients served,
// while a batch of 10k messages still needs only ten commands.
constexpr std::size_t max_arguments_per_command = 1000;
// Reading replies after this many buffered bytes bounds the client's copy of a batch in memory.
constexpr std::size_t max_buffered_bytes = 16u << 20;
// A healthy server answers a pipelined batch in well under a second; this long without progress on the
// socket means it is stuck, and the write is retried like a lost connection.
constexpr std::chrono::milliseconds command_timeout{30'000};
constexpr std::size_t max_score_digits = 20;  // "-9223372036854775808"

class RedisSink final : public Sink {
public:
    RedisSink(const SinkSpec& spec, RedisOptions options)
        : connection_(redis::Connection::connect_within(std::move(options), retry_budget(spec), command_timeout)),
          push_command_(spec.push == PushSide::left ? "LPUSH" : "RPUSH"),
          delayed_key_(redis::delayed_set(spec.queue)),
          retry_budget_(retry_budget(spec)) {
        if (spec.priority_lists.empty()) ready_keys_.push_back(redis::ready_list(spec.queue));
        for (const std::string& name : spec.priority_lists)
            ready_keys_.push_back(redis::priority_list(spec.queue, name));
        connection_.retrying(retry_budget_, [this] { check_key_types(); });
    }

    void write(const std::vector<Message>& batch) override {
        if (batch.empty()) return;
        plan(batch);
        // A retry after a partly sent pipeline sends the whole batch again: messages the server already
        // took are pushed twice. That is the at-least-once promise of DESIGN ("Delivery guarantees");
        // exactly-once needs the job-state path (MULTI/EXEC or Lua), not this one.
        connection_.retrying(retry_budget_, [this] { send(); });
    }

    std::optional<std::uint64_t> ready_count() override {
        return connection_.retrying(retry_budget_, [this] {
            for (const std::string& key : ready_keys_) connection_.append({"LLEN", key});
            std::uint64_t total = 0;
            for (const redis::Reply& reply : connection_.read_replies(ready_keys_.size()))
                total += static_cast<std::uint64_t>(reply.integer);
            return std::optional<std::uint64_t>(total);
        });
    }

    std::string describe() const override {
        std::string lists;
        for (const std::string& key : ready_keys_) lists += (lists.empty() ? "" : ", ") + key;
        return connection_.options().redacted() + (ready_keys_.size() == 1 ? " list " : " lists ") + lists;
    }

private:
    static std::chrono::milliseconds retry_budget(const SinkSpec& spec) {
        return std::chrono::seconds(spec.redis_retry_seconds);
    }

    // Refuses a queue whose keys already hold something else: pushing would fail with WRONGTYPE mid-run,
    // or, worse, mix our tasks into someone else's data.
    void check_key_types() {
        for (const std::string& key : ready_keys_) expect_type(key, "list");
        expect_type(delayed_key_, "zset");
    }

    void expect_type(const std::string& key, std::string_view expected) {
        const std::string type = connection_.command({"TYPE", key}).text;
        if (type == expected || type == "none") return;
        const std::string noun = expected == "zset" ? "a sorted set (zset)" : "a list";
        throw UsageError("key " + key + " is a " + type + ", expected " + noun + ": choose another --queue");
    }

    // Which key a message goes to: a ready key's index, or ready_keys_.size() for the delayed set.
    std::size_t destination(const Message& message) const {
        if (message.due_ms > 0) return ready_keys_.size();
        if (ready_keys_.size() == 1) return 0;
        if (message.priority_level < 0 || static_cast<std::size_t>(message.priority_level) >= ready_keys_.size())
            throw UsageError("priority level " + std::to_string(message.priority_level) + " has no list: " +
                             std::to_string(ready_keys_.size()) + " priority lists are configured");
        return static_cast<std::size_t>(message.priority_level);
    }

    // Turns the batch into commands, keeping its order: each run of consecutive messages with the same
    // destination becomes one variadic command (or several, ~1000 arguments each). Arguments are views
    // into the batch and into scores_, so no payload is copied here.
    void plan(const std::vector<Message>& batch) {
        arguments_.clear();
        commands_.clear();
        scores_.clear();
        std::size_t delayed = 0;
        for (const Message& message : batch) delayed += message.due_ms > 0 ? 1 : 0;
        scores_.resize(delayed * max_score_digits);  // never grows below, so views into it stay valid
        std::size_t score_end = 0;

        for (std::size_t i = 0; i < batch.size();) {
            const std::size_t target = destination(batch[i]);
            const bool is_delayed = target == ready_keys_.size();
            const std::size_t first = arguments_.size();
            arguments_.push_back(is_delayed ? std::string_view("ZADD") : std::string_view(push_command_));
            arguments_.push_back(is_delayed ? delayed_key_ : ready_keys_[target]);
            for (; i < batch.size() && arguments_.size() - first < max_arguments_per_command + 2 &&
                   destination(batch[i]) == target;
                 ++i) {
                if (is_delayed) {
                    char* start = scores_.data() + score_end;
                    const auto written = std::to_chars(start, start + max_score_digits, batch[i].due_ms);
                    arguments_.emplace_back(start, static_cast<std::size_t>(written.ptr - start));
                    score_end += max_score_digits;
                }
                arguments_.push_back(batch[i].payload);
            }
            commands_.push_back({first, arguments_.size() - first});
        }
    }

    // Pipelines the planned commands: buffer them, reading the replies whenever a few MB are buffered.
    void send() {
        std::size_t unread = 0;
        std::size_t buffered = 0;
        const std::span<const std::string_view> all(arguments_);
        for (const auto& [first, count] : commands_) {
            const auto command = all.subspan(first, count);
            connection_.append(command);
            ++unread;
            for (std::string_view argument : command) buffered += argument.size();
            if (buffered >= max_buffered_bytes) {
                connection_.read_replies(unread);
                unread = 0;
                buffered = 0;
            }
        }
        connection_.read_replies(unread);
    }

    redis::Connection connection_;
    std::string_view push_command_;
    std::vector<std::string> ready_keys_;
    std::string delayed_key_;
    std::chrono::milliseconds retry_budget_;

    // Rebuilt for every batch; kept to reuse their memory.
    std::vector<std::string_view> arguments_;
    std::vector<std::pair<std::size_t, std::size_t>> commands_;  // (first argument, argument count)
    std::string scores_;
};

void check_priority_lists(const SinkSpec& spec) {
    std::set<std::string> seen;
    for (const std::string& name : spec.priority_lists) {
        if (name.empty()) throw UsageError("empty priority list name: give each priority list a name");
        if (!seen.insert(name).second) throw UsageError("priority list '" + name + "' is named twice");
    }
}

}  // namespace

std::unique_ptr<Sink> make_redis_sink(const SinkSpec& spec, RedisOptions options) {
    check_priority_lists(spec);
    return std::make_unique<RedisSink>(spec, std::move(options));
}

}  // namespace rowpump
