// RedisQueue's maintenance: recovering dead consumers' tasks, promoting due delayed tasks, requeueing
// dead ones, stats and the backlog.
#include <charconv>
#include <limits>

#include "backend/redis/redis_queue_impl.hpp"
#include "backend/redis/redis_queue_keys.hpp"

namespace rowpump {

namespace {

std::int64_t parse_integer(const std::string& text) {
    std::int64_t value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

}  // namespace

ReapResult RedisQueue::reap(std::chrono::milliseconds heartbeat_timeout) {
    Impl& q = *impl_;
    const std::string timeout = std::to_string(heartbeat_timeout.count());
    const std::string max_attempts = std::to_string(q.options.retry.max_attempts);
    const auto expired = q.run([&] { return q.expired_script.run(q.connection, {q.consumers}, {timeout}); });
    ReapResult result;
    for (const auto& consumer : expired.elements) {
        const std::string processing = redis::processing_list(q.options.queue, consumer.text);
        const auto moved = q.run([&] {
            return q.recover_script.run(q.connection, {q.consumers, processing, q.return_list, q.attempts, q.dead},
                                        {consumer.text, timeout, max_attempts});
        });
        result.released += static_cast<std::uint64_t>(moved.elements.at(0).integer);
        result.dead += static_cast<std::uint64_t>(moved.elements.at(1).integer);
    }
    return result;
}

std::uint64_t RedisQueue::promote() {
    Impl& q = *impl_;
    const std::string batch = std::to_string(q.options.promote_batch);
    std::uint64_t moved = 0;
    for (;;) {
        const auto reply = q.run([&] { return q.promote_script.run(q.connection, {q.delayed, q.return_list}, {batch, q.score_unit_ms}); });
        moved += static_cast<std::uint64_t>(reply.integer);
        if (static_cast<std::size_t>(reply.integer) < q.options.promote_batch) return moved;
    }
}

Backlog RedisQueue::backlog(std::chrono::milliseconds heartbeat_timeout) {
    constexpr std::size_t scan_limit = 10'000;
    Impl& q = *impl_;
    const std::string horizon = std::to_string(q.options.retry.backoff_cap.count());
    const std::string limit = std::to_string(scan_limit);
    std::vector<std::string_view> keys{q.delayed};
    keys.insert(keys.end(), q.ready_lists.begin(), q.ready_lists.end());
    const std::string_view args[] = {horizon, limit, q.score_unit_ms};
    const auto reply = q.run([&] { return q.backlog_script.run(q.connection, keys, args); });
    const auto count = [&](std::size_t i) { return static_cast<std::uint64_t>(reply.elements.at(i).integer); };
    // Ready tasks count too: the maintenance thread may have promoted them since this consumer's last pop.
    const std::uint64_t takeable = count(0) + count(1);
    Backlog backlog;
    backlog.waiting = takeable + count(2);
    if (takeable == 0 && reply.elements.at(3).integer > 0)
        backlog.next_due = std::chrono::milliseconds(reply.elements.at(3).integer);
    backlog.later = count(4);
    // Only when nothing is takeable, which is when a draining consumer asks: a look at every consumer.
    if (backlog.waiting == 0) {
        for (const QueueStats::Holder& holder : stats(heartbeat_timeout).holders) {
            if (holder.name == q.options.consumer) continue;  // what this consumer holds, it hands out itself
            backlog.held += holder.tasks;
            if (!holder.alive) backlog.orphaned += holder.tasks;
        }
    }
    return backlog;
}

std::uint64_t RedisQueue::requeue_dead(std::uint64_t limit) {
    Impl& q = *impl_;
    const std::uint64_t wanted = limit == 0 ? std::numeric_limits<std::uint64_t>::max() : limit;
    std::uint64_t moved = 0;
    while (moved < wanted) {
        const std::uint64_t step = std::min<std::uint64_t>(max_tasks_per_script, wanted - moved);
        const std::string batch = std::to_string(step);
        const auto reply = q.run([&] {
            return q.requeue_dead_script.run(q.connection, {q.dead, q.return_list, q.attempts}, {batch});
        });
        moved += static_cast<std::uint64_t>(reply.integer);
        if (static_cast<std::uint64_t>(reply.integer) < step) break;
    }
    return moved;
}

QueueStats RedisQueue::stats(std::chrono::milliseconds heartbeat_timeout) {
    Impl& q = *impl_;
    return q.run([&] {
        QueueStats stats;
        for (const std::string& list : q.ready_lists) q.connection.append({"LLEN", list});
        q.connection.append({"ZCARD", q.delayed});
        q.connection.append({"LLEN", q.dead});
        q.connection.append({"ZRANGE", q.consumers, "0", "-1", "WITHSCORES"});
        q.connection.append({"TIME"});
        auto replies = q.connection.read_replies(q.ready_lists.size() + 4);
        for (std::size_t i = 0; i < q.ready_lists.size(); ++i) stats.ready += static_cast<std::uint64_t>(replies[i].integer);
        std::size_t at = q.ready_lists.size();
        stats.delayed = static_cast<std::uint64_t>(replies[at++].integer);
        stats.dead = static_cast<std::uint64_t>(replies[at++].integer);
        const auto& beats = replies[at++].elements;
        const auto& time = replies[at].elements;
        const std::int64_t now_ms = parse_integer(time.at(0).text) * 1000 + parse_integer(time.at(1).text) / 1000;

        for (std::size_t i = 0; i + 1 < beats.size(); i += 2)
            q.connection.append({"LLEN", redis::processing_list(q.options.queue, beats[i].text)});
        const auto lengths = q.connection.read_replies(beats.size() / 2);
        for (std::size_t i = 0; i + 1 < beats.size(); i += 2) {
            QueueStats::Holder holder;
            holder.name = beats[i].text;
            holder.tasks = static_cast<std::uint64_t>(lengths[i / 2].integer);
            const std::int64_t age_ms = now_ms - parse_integer(beats[i + 1].text);
            holder.age_seconds = static_cast<double>(age_ms) / 1000.0;
            holder.alive = age_ms <= heartbeat_timeout.count();
            stats.in_flight += holder.tasks;
            stats.holders.push_back(std::move(holder));
        }
        return stats;
    });
}

}  // namespace rowpump
