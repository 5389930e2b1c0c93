// RedisQueue's consumer operations: reliable pop, ack, fail, release, heartbeats (scripts in
// redis_queue_scripts.hpp).
#include <unistd.h>

#include <algorithm>
#include <span>
#include <atomic>
#include <charconv>

#include "config/option_error.hpp"
#include "log.hpp"
#include "backend/redis/redis_queue_impl.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "queue/retry_policy.hpp"
#include "redis/key_types.hpp"

namespace rowpump {

namespace {

// How long one blocking command may block (the connection's read timeout is added for its reply).
constexpr std::chrono::milliseconds max_block{5000};

std::string default_consumer_name() {
    static std::atomic<unsigned> next{0};
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return std::string(*host ? host : "localhost") + ":" + std::to_string(::getpid()) + ":" +
           std::to_string(next++);
}

int parse_count(const std::string& text) {
    int value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

std::string seconds_argument(std::chrono::milliseconds duration) {
    return std::to_string(duration.count() / 1000) + "." + std::to_string(1000 + duration.count() % 1000).substr(1);
}

void validate(const RedisQueueOptions& options) {
    using config::OptionId;
    if (options.queue.empty()) throw config::OptionError({"no Redis queue given: pass ", OptionId::queue_name, " NAME"});
    for (const std::string& name : options.priority_lists)
        if (name.empty()) throw UsageError("a priority list name is empty");
    if (!options.return_list.empty() &&
        std::find(options.priority_lists.begin(), options.priority_lists.end(), options.return_list) ==
            options.priority_lists.end())
        throw UsageError("return list '" + options.return_list + "' is not one of the priority lists");
    if (options.priority_lists.empty() && options.list_key != redis::default_list_key)
        throw config::OptionError({"list key '" + options.list_key + "' names priority lists, but none are given: add ",
                                   OptionId::priority_lists, " (the names the producer's ", OptionId::priority,
                                   " used), or drop ", OptionId::list_key});
    if (options.poll_interval.count() < 10) throw UsageError("the poll interval must be at least 10 ms");
    if (options.promote_batch == 0 || options.promote_batch > max_tasks_per_script)
        throw UsageError("the promote batch must be between 1 and " + std::to_string(max_tasks_per_script));
    queue::validate(options.retry);
}

StaleClaim stale(const std::string& processing) {
    return StaleClaim("task no longer in " + processing +
                      ": recovered after this consumer's heartbeat expired, or already finished; drop it");
}

}  // namespace

RedisQueue::Impl::Impl(RedisOptions redis, RedisQueueOptions queue)
    : connection(redis::Connection::connect_within(std::move(redis))),
      options(std::move(queue)) {
    validate(options);
    if (options.consumer.empty()) options.consumer = default_consumer_name();
    const std::string& q = options.queue;
    processing = redis::processing_list(q, options.consumer);
    attempts = q + ":attempts";
    delayed = redis::delayed_key(options.delayed_key, q);
    dead = redis::dead_list(q);
    consumers = redis::consumers_set(q);
    return_list = options.return_list.empty() ? redis::ready_list(q) : redis::list_key(options.list_key, q, options.return_list);
    ready_lists = redis::consumer_ready_lists(options);
    score_unit_ms = options.delay_score == DelayScore::seconds ? "1000" : "1";
    std::vector<std::pair<std::string, std::string_view>> key_types{
        {processing, "list"}, {attempts, "hash"}, {delayed, "zset"}, {dead, "list"}, {consumers, "zset"}};
    for (const std::string& list : ready_lists) key_types.emplace_back(list, "list");
    run([&] { redis::expect_key_types(connection, key_types); });
}

void RedisQueue::Impl::pop_ready(std::size_t n, std::vector<Task>& out) {
    std::vector<std::string_view> keys{processing, attempts};
    keys.insert(keys.end(), ready_lists.begin(), ready_lists.end());
    while (n > 0) {
        const std::string step = std::to_string(std::min(n, max_tasks_per_script));
        const std::string_view args[] = {step};
        const auto reply = run([&] { return pop_script.run(connection, keys, args); });
        const std::size_t moved = reply.elements.size() / 2;
        for (std::size_t i = 0; i < moved; ++i) {
            Task task;
            task.payload = reply.elements[2 * i].text;
            task.attempts = parse_count(reply.elements[2 * i + 1].text);
            task.deliveries = task.attempts + 1;  // the count holds failures and recoveries alike
            hold(task.payload);
            out.push_back(std::move(task));
        }
        if (moved < std::min(n, max_tasks_per_script)) return;
        n -= moved;
    }
}

void RedisQueue::Impl::hold(const std::string& payload) { ++held[payload]; }

void RedisQueue::Impl::forget(const std::string& payload) {
    auto found = held.find(payload);
    if (found != held.end() && --found->second == 0) held.erase(found);
}

void RedisQueue::Impl::adopt_unknown_tasks() {
    auto known = held;
    for (const Task& task : adopted) ++known[task.payload];
    std::vector<Task> unknown;
    for (auto& item : connection.command({"LRANGE", processing, "0", "-1"}).elements) {
        auto found = known.find(item.text);
        if (found != known.end() && found->second > 0) {
            --found->second;
            continue;
        }
        Task task;
        task.payload = std::move(item.text);
        unknown.push_back(std::move(task));
    }
    if (!unknown.empty()) {
        // A predecessor's tasks were delivered to it, and it died with them: that counts, as a recovery
        // does (recover script). Tasks of a pop whose reply was lost were never handed out.
        for (const Task& task : unknown) {
            if (adopting_predecessor) connection.append({"HINCRBY", attempts, task.payload, "1"});
            else connection.append({"HGET", attempts, task.payload});
        }
        const auto counts = connection.read_replies(unknown.size());
        for (std::size_t i = 0; i < unknown.size(); ++i) {
            const redis::Reply& count = counts.at(i);
            unknown[i].attempts = count.type == redis::Reply::Type::integer ? static_cast<int>(count.integer)
                                                                           : parse_count(count.text);
            unknown[i].deliveries = unknown[i].attempts + 1;
            hold(unknown[i].payload);
            adopted.push_back(std::move(unknown[i]));
        }
        log().info("consumer {} took over {} task(s) left in {}", options.consumer, unknown.size(), processing);
    }
    look_for_unknown_tasks = false;
    adopting_predecessor = false;
}

RedisQueue::RedisQueue(RedisOptions options, RedisQueueOptions queue)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(queue))) {}
RedisQueue::~RedisQueue() = default;
RedisQueue::RedisQueue(RedisQueue&&) noexcept = default;
RedisQueue& RedisQueue::operator=(RedisQueue&&) noexcept = default;

std::vector<Task> RedisQueue::claim(std::size_t n, std::chrono::milliseconds wait) {
    Impl& q = *impl_;
    std::vector<Task> tasks;
    if (n == 0) return tasks;
    if (!q.has_beaten) {
        heartbeat();
        q.has_beaten = true;
    }
    if (q.look_for_unknown_tasks) q.run([&] { q.adopt_unknown_tasks(); });
    while (!q.adopted.empty() && tasks.size() < n) {
        tasks.push_back(std::move(q.adopted.front()));
        q.adopted.pop_front();
    }
    q.pop_ready(n - tasks.size(), tasks);

    // Nothing ready: block on the first list (reliably, BLMOVE into the processing list). With priority
    // lists, wake every poll_interval to look at the others: Redis cannot block on several lists
    // without popping from them, and a plain blocking pop would lose the task if we died right after.
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (tasks.empty()) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() < 10) break;
        const auto block = std::min(left, q.ready_lists.size() == 1 ? max_block : q.options.poll_interval);
        const std::string timeout = seconds_argument(block);
        const auto moved = q.run([&] {
            return q.connection.blocking_command({"BLMOVE", q.ready_lists.front(), q.processing, "LEFT", "RIGHT", timeout},
                                                 block);
        });
        if (!moved.is_nil()) {
            Task task;
            task.payload = moved.text;
            task.attempts = parse_count(q.run([&] { return q.connection.command({"HGET", q.attempts, moved.text}); }).text);
            task.deliveries = task.attempts + 1;
            q.hold(task.payload);
            tasks.push_back(std::move(task));
        }
        q.pop_ready(n - tasks.size(), tasks);
    }
    return tasks;
}

void RedisQueue::ack(const Task& task) {
    if (!ack(std::vector<Task>{task}).empty()) throw stale(impl_->processing);
}

std::vector<std::size_t> RedisQueue::ack(const std::vector<Task>& task_list) {
    const std::span<const Task> tasks(task_list);
    Impl& q = *impl_;
    std::vector<std::size_t> stale_tasks;
    std::vector<std::string_view> payloads;
    for (std::size_t first = 0; first < tasks.size(); first += max_tasks_per_script) {
        const auto chunk = tasks.subspan(first, std::min(max_tasks_per_script, tasks.size() - first));
        payloads.clear();
        for (const Task& task : chunk) payloads.push_back(task.payload);
        const std::string_view keys[] = {q.processing, q.attempts};
        const auto reply = q.run([&] { return q.ack_script.run(q.connection, keys, payloads); });
        for (const auto& position : reply.elements) stale_tasks.push_back(first + static_cast<std::size_t>(position.integer) - 1);
        for (const Task& task : chunk) q.forget(task.payload);
    }
    return stale_tasks;
}

FailOutcome RedisQueue::fail(const Task& task, const std::string& error) { return fail(task, error, impl_->options.retry); }

FailOutcome RedisQueue::fail(const Task& task, const std::string& error, const RetryPolicy& retry) {
    Impl& q = *impl_;
    const std::string max_attempts = std::to_string(retry.max_attempts);
    const std::string base = std::to_string(retry.backoff_base.count());
    const std::string cap = std::to_string(retry.backoff_cap.count());
    const std::string jitter = std::to_string(queue::jitter_millionths(retry));
    const auto reply = q.run([&] {
        return q.fail_script.run(q.connection, {q.processing, q.attempts, q.delayed, q.dead},
                                 {task.payload, max_attempts, base, cap, jitter, q.score_unit_ms});
    });
    q.forget(task.payload);
    if (reply.integer < 0) throw stale(q.processing);
    log().debug("task failed in {} ({}): {}", q.options.queue, reply.integer == 0 ? "dead" : "will retry", error);
    return reply.integer == 0 ? FailOutcome::dead : FailOutcome::retried;
}

void RedisQueue::release(const std::vector<Task>& tasks) {
    Impl& q = *impl_;
    if (tasks.empty()) return;
    std::vector<std::string_view> payloads;
    for (const Task& task : tasks) payloads.push_back(task.payload);
    const std::string_view keys[] = {q.processing, q.return_list};
    q.run([&] { return q.release_script.run(q.connection, keys, payloads); });
    for (const Task& task : tasks) q.forget(task.payload);
}

void RedisQueue::heartbeat() { heartbeat(std::vector<std::string>{impl_->options.consumer}); }

void RedisQueue::heartbeat(const std::vector<std::string>& names) {
    Impl& q = *impl_;
    if (names.empty()) return;
    const std::vector<std::string_view> args(names.begin(), names.end());
    const std::string_view keys[] = {q.consumers};
    q.run([&] { return q.heartbeat_script.run(q.connection, keys, args); });
}

void RedisQueue::leave() {
    Impl& q = *impl_;
    q.run([&] { return q.leave_script.run(q.connection, {q.consumers, q.processing}, {q.options.consumer}); });
}

const std::string& RedisQueue::consumer() const { return impl_->options.consumer; }
const RedisQueueOptions& RedisQueue::options() const { return impl_->options; }

}  // namespace rowpump
