#pragma once
// stdout and file:PATH: NDJSON, one payload per line. They hold no queue and keep no job.
#include "backend/backend.hpp"

namespace rowpump {

const Backend& stdout_backend();
const Backend& file_backend();

}  // namespace rowpump
