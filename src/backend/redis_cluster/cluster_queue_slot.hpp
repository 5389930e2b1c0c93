#pragma once
// On a Redis Cluster a queue lives in one hash slot: its ready lists, priority lists, delayed set, the
// consumers' processing lists and bookkeeping, and a job's state keys. Then a page's MULTI/EXEC, the
// consumers' Lua scripts and a BLPOP over the priority lists each touch one slot, which is all a cluster
// allows. The queue's name carries the hash tag ("{orders}"), and the default list and delayed-set names
// keep it ("{orders}:p:high", "{orders}:delayed").
#include <cstdint>
#include <string>
#include <vector>

#include "backend/redis/redis_target.hpp"

namespace rowpump::redis {

class PushPlan;

// The slot of every key `plan` writes and the consumers of its queue use. Throws UsageError, in one line
// that names two keys in different slots and what to change, when they are not all in one slot.
std::uint16_t queue_slot(const RedisQueueKeys& keys, const PushPlan& plan);
// The same for a consumer's keys: the ready lists (priority lists first), delayed set, processing list,
// dead list, attempts hash and consumers set of `queue`.
std::uint16_t consumer_queue_slot(const std::string& queue, const std::vector<std::string>& keys);

// Where a job's state keys go on a cluster: the default prefix gets the queue's hash tag
// ("rowpump:job:{orders}:"); a prefix given is kept. Throws UsageError when the job's keys would not land
// in `slot`, saying which prefix would.
std::string cluster_state_prefix(const std::string& prefix, const std::string& queue, std::uint16_t slot);

}  // namespace rowpump::redis
