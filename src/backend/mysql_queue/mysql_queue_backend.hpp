#pragma once
// The MySQL queue table of docs/DESIGN.md ("Queues"), with a job's state in tables beside it:
// mysql://user:pass@host:port/db (mariadb:// is the same).
#include "backend/backend.hpp"

namespace rowpump {

const Backend& mysql_queue_backend();

}  // namespace rowpump
