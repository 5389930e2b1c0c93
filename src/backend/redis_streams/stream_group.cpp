#include "backend/redis_streams/stream_group.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "backend/redis_streams/stream_commands.hpp"
#include "backend/redis_streams/stream_group_info.hpp"
#include "backend/redis_streams/stream_scripts.hpp"
#include "config/option_error.hpp"
#include "encode/json_string.hpp"
#include "log.hpp"
#include "queue/retry_policy.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// How often a consumer looks for entries idle past the claim timeout, at most.
constexpr milliseconds reclaim_interval{1000};

// The entry's payload: its `payload` field, else its fields as a JSON object (entries another producer
// wrote).
std::string entry_payload(const std::vector<redis::Reply>& fields) {
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2)
        if (fields[i].text == redis::stream_payload_field) return fields[i + 1].text;
    std::string json = "{";
    for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
        if (i > 0) json += ',';
        append_json_string(fields[i].text, json);
        json += ':';
        append_json_string(fields[i + 1].text, json);
    }
    return json + "}";
}

Task entry_task(const redis::Reply& id, const redis::Reply& fields, long long deliveries) {
    Task task;
    // "<ms>-<seq>"
    const std::size_t dash = id.text.find('-');
    task.id = std::stoull(id.text.substr(0, dash));
    task.version = dash == std::string::npos ? 0 : std::stoull(id.text.substr(dash + 1));
    task.payload = entry_payload(fields.elements);
    task.deliveries = static_cast<int>(std::max(1LL, deliveries));
    task.attempts = task.deliveries - 1;
    return task;
}

// The delay before retry k (k = 1 after the first failure), as RetryPolicy says.
milliseconds retry_delay(const RetryPolicy& policy, int failures) {
    const int doublings = std::clamp(failures - 1, 0, 40);
    const auto cap = policy.backoff_cap.count();
    long long delay = policy.backoff_base.count();
    for (int i = 0; i < doublings && delay < cap; ++i) delay *= 2;
    delay = std::min(delay, static_cast<long long>(cap));
    return milliseconds(delay * queue::jitter_millionths(policy) / 1'000'000);
}

std::string text_of(std::uint64_t n) { return std::to_string(n); }

}  // namespace

std::string stream_dead_key(const std::string& stream) { return stream + ":dead"; }

std::string entry_id(const Task& task) { return std::to_string(task.id) + "-" + std::to_string(task.version); }

StreamGroup::StreamGroup(RedisOptions redis, StreamGroupOptions options)
    : options_(std::move(options)),
      dead_(stream_dead_key(options_.stream)),
      timeout_text_(std::to_string(options_.claim_timeout.count())),
      connection_(redis::Connection::connect_within(std::move(redis))),
      ack_script_(stream_scripts::ack),
      bury_script_(stream_scripts::bury),
      reclaim_script_(stream_scripts::reclaim),
      touch_script_(stream_scripts::touch) {
    run([&] { create_group(); });
}

void StreamGroup::create_group() {
    for (const std::string* key : {&options_.stream, &dead_}) {
        const std::string type = connection_.command({"TYPE", *key}).text;
        if (type != "stream" && type != "none")
            throw config::OptionError({"key " + *key + " is a " + type + ", expected a stream (read through the group " +
                                       options_.group + "): choose another ", config::OptionId::queue_name});
    }
    try {
        connection_.command({"XGROUP", "CREATE", options_.stream, options_.group, "0", "MKSTREAM"});
        log().info("stream {}: created consumer group {} (from the first entry)", options_.stream, options_.group);
    } catch (const QueueError& error) {
        if (error.is_transient() || std::string_view(error.what()).find("BUSYGROUP") == std::string_view::npos) throw;
    }
}

std::vector<Task> StreamGroup::claim(std::size_t n, milliseconds wait) {
    std::vector<Task> tasks;
    if (steady_clock::now() >= next_reclaim_) {
        ReapResult reaped;
        tasks = take_idle(n, reaped);
        if (reaped.dead > 0)
            log().error("stream {}: {} entr{} delivered more than {} times moved to {}", options_.stream, reaped.dead,
                        reaped.dead == 1 ? "y" : "ies", options_.retry.max_attempts, dead_);
        // Full: there may be more idle ones; look again at the next claim.
        next_reclaim_ = tasks.size() == n ? steady_clock::now() : steady_clock::now() + reclaim_interval;
    }
    if (tasks.empty()) tasks = read_new(n, wait);
    for (const Task& task : tasks) held_.push_back(entry_id(task));
    return tasks;
}

std::vector<Task> StreamGroup::read_new(std::size_t n, milliseconds wait) {
    const std::string count = text_of(n), block = std::to_string(std::max<long long>(wait.count(), 1));
    const redis::Reply reply = run([&] {
        // BLOCK 0 would wait forever: no wait, no BLOCK.
        if (wait.count() <= 0)
            return connection_.command({"XREADGROUP", "GROUP", options_.group, options_.consumer, "COUNT", count,
                                        "STREAMS", options_.stream, ">"});
        return connection_.blocking_command({"XREADGROUP", "GROUP", options_.group, options_.consumer, "COUNT",
                                             count, "BLOCK", block, "STREAMS", options_.stream, ">"},
                                            wait);
    });
    std::vector<Task> tasks;
    if (reply.is_nil() || reply.elements.empty()) return tasks;
    for (const redis::Reply& entry : reply.elements.at(0).elements.at(1).elements)
        tasks.push_back(entry_task(entry.elements.at(0), entry.elements.at(1), 1));
    return tasks;
}

std::vector<Task> StreamGroup::take_idle(std::size_t n, ReapResult& reaped) {
    const std::string count = text_of(n), most = std::to_string(options_.retry.max_attempts);
    const redis::Reply reply = run([&] {
        return reclaim_script_.run(connection_, {options_.stream, dead_},
                                   {options_.group, options_.consumer, timeout_text_, count, most});
    });
    reaped.dead += static_cast<std::uint64_t>(reply.elements.at(0).integer);
    std::vector<Task> tasks;
    for (const redis::Reply& taken : reply.elements.at(1).elements)
        tasks.push_back(entry_task(taken.elements.at(0), taken.elements.at(2), taken.elements.at(1).integer));
    reaped.released += tasks.size();
    if (!tasks.empty())
        log().warn("stream {}: took over {} entr{} idle past {} ms (its consumer died or stalled)", options_.stream,
                   tasks.size(), tasks.size() == 1 ? "y" : "ies", options_.claim_timeout.count());
    return tasks;
}

std::vector<std::size_t> StreamGroup::ack(const std::vector<Task>& tasks) {
    std::vector<std::string> ids;
    for (const Task& task : tasks) ids.push_back(entry_id(task));
    std::vector<std::string_view> args{options_.group, options_.consumer};
    args.insert(args.end(), ids.begin(), ids.end());
    const std::string_view key = options_.stream;
    const redis::Reply reply = run([&] { return ack_script_.run(connection_, std::span(&key, 1), args); });
    for (const std::string& id : ids) forget(id);
    std::vector<std::size_t> stale;
    for (const redis::Reply& position : reply.elements) stale.push_back(static_cast<std::size_t>(position.integer));
    return stale;
}

FailOutcome StreamGroup::fail(const Task& task, const std::string& error, const RetryPolicy& policy) {
    const std::string id = entry_id(task);
    forget(id);
    if (task.deliveries >= policy.max_attempts) {
        const auto buried = run([&] {
            return bury_script_.run(connection_, {options_.stream, dead_},
                                    {options_.group, options_.consumer, id, error});
        });
        if (buried.integer != 1) throw StaleClaim("its entry was claimed by another consumer meanwhile");
        return FailOutcome::dead;
    }
    // Claimed again (by any consumer of the group) once it has been idle for the claim timeout: made that
    // much less the delay idle now, it comes back after the delay.
    const milliseconds delay = std::min(retry_delay(policy, task.deliveries), options_.claim_timeout);
    if (touch({id}, options_.claim_timeout - delay, "") != 1)
        throw StaleClaim("its entry was claimed by another consumer meanwhile");
    return FailOutcome::retried;
}

void StreamGroup::release(const std::vector<Task>& tasks) {
    // Idle past the timeout at once, and this delivery not counted: the next claim of any consumer takes it.
    for (const Task& task : tasks) {
        const std::string id = entry_id(task);
        forget(id);
        touch({id}, options_.claim_timeout, std::to_string(std::max(0, task.deliveries - 1)));
    }
}

ReapResult StreamGroup::reclaim(std::size_t count) {
    // What this consumer takes over it must run: the entries are handed out by the next claim(), which looks
    // at once. Here they are only counted.
    const redis::Reply idle = run([&] {
        return connection_.command({"XPENDING", options_.stream, options_.group, "IDLE", timeout_text_, "-", "+",
                                    text_of(count)});
    });
    next_reclaim_ = steady_clock::now();
    ReapResult result;
    result.released = idle.elements.size();
    return result;
}

void StreamGroup::renew() {
    const auto now = steady_clock::now();
    if (held_.empty() || now < next_renew_) return;
    next_renew_ = now + options_.claim_timeout / 3;
    std::vector<std::string_view> entries(held_.begin(), held_.end());
    touch(entries, milliseconds(0), "");
}

long long StreamGroup::touch(const std::vector<std::string_view>& entries, milliseconds idle,
                             std::string_view retry_count) {
    const std::string idle_text = std::to_string(std::max<long long>(idle.count(), 0));
    std::vector<std::string_view> args{options_.group, options_.consumer, idle_text, retry_count};
    args.insert(args.end(), entries.begin(), entries.end());
    const std::string_view key = options_.stream;
    return run([&] { return touch_script_.run(connection_, std::span(&key, 1), args); }).integer;
}

Backlog StreamGroup::backlog() {
    return run([&] {
        const StreamGroupInfo info = read_group_info(connection_, options_.stream, options_.group);
        Backlog backlog;
        backlog.waiting = info.waiting;
        backlog.held = info.pending;
        if (info.pending > 0) {
            // Held past the claim timeout: a reap (the next claim) takes them over now.
            const redis::Reply idle = connection_.command(
                {"XPENDING", options_.stream, options_.group, "IDLE", timeout_text_, "-", "+", "1000"});
            backlog.orphaned = idle.elements.size();
        }
        return backlog;
    });
}

void StreamGroup::leave() {
    // Only a consumer that holds nothing: XGROUP DELCONSUMER forgets the entries a consumer holds.
    static constexpr const char* forget_if_idle = R"lua(
if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) == 0 then
  return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
end
return -1
)lua";
    run([&] {
        return connection_.command({"EVAL", forget_if_idle, "1", options_.stream, options_.group, options_.consumer});
    });
}

void StreamGroup::forget(const std::string& entry) {
    const auto at = std::find(held_.begin(), held_.end(), entry);
    if (at != held_.end()) held_.erase(at);
}

}  // namespace rowpump
