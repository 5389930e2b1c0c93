#pragma once
// The Redis key names of a queue Q (docs/DESIGN.md, "Queues"), shared by producers and consumers.
#include <string>

namespace rowpump::redis {

inline std::string ready_list(const std::string& queue) { return queue; }
inline std::string priority_list(const std::string& queue, const std::string& level) { return queue + ":p:" + level; }
inline std::string delayed_set(const std::string& queue) { return queue + ":delayed"; }
inline std::string processing_list(const std::string& queue, const std::string& consumer) {
    return queue + ":processing:" + consumer;
}
inline std::string dead_list(const std::string& queue) { return queue + ":dead"; }
inline std::string consumers_set(const std::string& queue) { return queue + ":consumers"; }
// Sidekiq's keys (its client.rb and scheduled.rb): a queue's list, the set of queue names, the schedule.
inline std::string sidekiq_queue_list(const std::string& queue) { return "queue:" + queue; }
inline const std::string sidekiq_queues_set = "queues";
inline const std::string sidekiq_schedule_set = "schedule";
inline std::string job_meta(const std::string& job_id) { return "rowpump:job:" + job_id + ":meta"; }
inline std::string job_range(const std::string& job_id, std::size_t range) {
    return "rowpump:job:" + job_id + ":range:" + std::to_string(range);
}

}  // namespace rowpump::redis
