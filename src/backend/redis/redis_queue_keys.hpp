#pragma once
// The Redis key names of a queue Q (docs/DESIGN.md, "Queues"), shared by producers and consumers. The
// priority lists and the delayed set are named by templates (docs/payloads-and-names.md) so that
// consumers written for other names find what rowpump writes.
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/queue.hpp"

namespace rowpump::redis {

inline constexpr std::string_view default_list_key = "{queue}:p:{level}";
inline constexpr std::string_view default_delayed_key = "{queue}:delayed";
inline constexpr std::string_view default_state_prefix = "rowpump:job:";

// The priority list of `level` under the template (which must hold {level}; {queue} is optional). Throws
// UsageError with the position for bad braces or an unknown placeholder.
std::string list_key(std::string_view key_template, std::string_view queue, std::string_view level);
// The delayed set under the template ({queue} only). Throws UsageError like list_key.
std::string delayed_key(std::string_view key_template, std::string_view queue);
// The lists a consumer of `queue` takes tasks from, in order: its priority lists, then the ready list Q.
// Throws UsageError like list_key.
std::vector<std::string> consumer_ready_lists(const RedisQueueOptions& queue);
// Throws UsageError unless the prefix is 1 to 128 visible characters without glob characters (*?[]\),
// which an ACL key pattern (~prefix*) could not name exactly.
void check_state_prefix(std::string_view prefix);

inline std::string ready_list(const std::string& queue) { return queue; }
inline std::string priority_list(const std::string& queue, const std::string& level) {
    return list_key(default_list_key, queue, level);
}
inline std::string delayed_set(const std::string& queue) { return delayed_key(default_delayed_key, queue); }
inline std::string processing_list(const std::string& queue, const std::string& consumer) {
    return queue + ":processing:" + consumer;
}
inline std::string dead_list(const std::string& queue) { return queue + ":dead"; }
inline std::string consumers_set(const std::string& queue) { return queue + ":consumers"; }
// Sidekiq's keys (its client.rb and scheduled.rb): a queue's list, the set of queue names, the schedule.
inline std::string sidekiq_queue_list(const std::string& queue) { return "queue:" + queue; }
inline const std::string sidekiq_queues_set = "queues";
// The list kombu's Redis transport keeps a Celery message of `priority` in (kombu/transport/redis.py,
// _q_for_pri): the step is the largest of its default priority_steps (0, 3, 6, 9) not above it; Q for step
// 0, else Q + sep '\x06\x16' + the step. Its workers BRPOP Q, then the lists of steps 3, 6 and 9.
inline std::string celery_priority_list(const std::string& queue, unsigned priority) {
    const unsigned step = priority >= 9 ? 9 : priority >= 6 ? 6 : priority >= 3 ? 3 : 0;
    return step == 0 ? queue : queue + "\x06\x16" + std::to_string(step);
}
inline const std::string sidekiq_schedule_set = "schedule";
inline std::string job_meta(std::string_view prefix, const std::string& job_id) {
    return std::string(prefix) + job_id + ":meta";
}
inline std::string job_range(std::string_view prefix, const std::string& job_id, std::size_t range) {
    return std::string(prefix) + job_id + ":range:" + std::to_string(range);
}
inline std::string job_meta(const std::string& job_id) { return job_meta(default_state_prefix, job_id); }
inline std::string job_range(const std::string& job_id, std::size_t range) {
    return job_range(default_state_prefix, job_id, range);
}

}  // namespace rowpump::redis
