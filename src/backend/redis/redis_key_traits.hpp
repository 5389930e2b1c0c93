#pragma once
// What every backend over Redis keys accepts (a list, a cluster's list, a stream): --queue names a key, the
// Redis key options apply, and a job's checkpoints are kept in hashes beside the queue. Each adds its own.
#include "backend/backend.hpp"

namespace rowpump {

constexpr BackendTraits redis_key_traits(BackendTraits more) {
    more.takes_queue = true;
    more.redis_keys = true;
    more.keeps_jobs = true;
    return more;
}

}  // namespace rowpump
