#pragma once
// Redis lists (plain, priority, delayed) in rowpump's, Sidekiq's or Celery's layout, and a job's state in
// Redis hashes beside them: redis://[user:pass@]host:port/db.
#include "backend/backend.hpp"

namespace rowpump {

const Backend& redis_backend();

}  // namespace rowpump
