#include "backend/redis_cluster/cluster_queue_slot.hpp"

#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "redis/cluster_slot.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

bool has_tag(const std::string& name) { return hash_tag(name).size() != name.size(); }

// What to change, for a queue whose keys are spread over slots.
std::string advice(const std::string& queue) {
    if (!has_tag(queue))
        return "put the queue's name in a hash tag, e.g. --queue '{" + queue + "}', so that all its keys share it";
    return "keep the queue's hash tag {" + std::string(hash_tag(queue)) +
           "} in every key: --list-key and --delayed-key must name {queue} before any other braces";
}

std::uint16_t one_slot(const std::string& queue, const std::vector<std::string>& keys) {
    const std::uint16_t slot = key_slot(keys.front());
    for (const std::string& key : keys) {
        if (key_slot(key) == slot) continue;
        throw UsageError("on a Redis Cluster every key of queue '" + queue + "' must be in one hash slot, but " +
                         keys.front() + " is in slot " + std::to_string(slot) + " and " + key + " in slot " +
                         std::to_string(key_slot(key)) + ": " + advice(queue));
    }
    return slot;
}

}  // namespace

std::uint16_t consumer_queue_slot(const std::string& queue, const std::vector<std::string>& keys) {
    std::vector<std::string> all{queue};
    all.insert(all.end(), keys.begin(), keys.end());
    for (const std::string& key : {processing_list(queue, "consumer"), dead_list(queue), consumers_set(queue),
                                   queue + ":attempts"})
        all.push_back(key);
    return one_slot(queue, all);
}

std::uint16_t queue_slot(const RedisQueueKeys& queue, const PushPlan& plan) {
    std::vector<std::string> keys = plan.ready_keys();
    keys.push_back(plan.delayed_key());
    if (queue.layout == QueueLayout::sidekiq) keys.push_back(sidekiq_queues_set);
    // Sidekiq's and Celery's lists are not named by the queue alone: their first key leads.
    if (queue.layout != QueueLayout::rowpump) return one_slot(queue.queue, keys);
    return consumer_queue_slot(queue.queue, keys);
}

std::string cluster_state_prefix(const std::string& prefix, const std::string& queue, std::uint16_t slot) {
    const std::string tagged = std::string(default_state_prefix) + "{" + std::string(hash_tag(queue)) + "}:";
    const std::string chosen = prefix == default_state_prefix && has_tag(queue) ? tagged : prefix;
    if (has_tag(chosen) && key_slot(chosen) == slot) return chosen;
    throw UsageError("on a Redis Cluster a job's state keys must be in its queue's hash slot (" + std::to_string(slot) +
                     "), and state prefix '" + chosen + "' puts them in slot " + std::to_string(key_slot(chosen)) +
                     ": give --state-prefix '" + tagged + "'");
}

}  // namespace rowpump::redis
