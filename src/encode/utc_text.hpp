#pragma once
// A Unix time as the workers' languages write UTC: the ISO 8601 date and time to the second
// ("2026-01-02T03:04:05"), and the microseconds within the second, for each format to end as its worker's
// library does (ActiveJob's ".123456000Z", Celery's ".250000+00:00").
#include <cstdint>
#include <string>

namespace rowpump {

// Appends "YYYY-MM-DDTHH:MM:SS" of `unix_us` (microseconds since 1970 UTC) and returns its microseconds
// within the second (0 to 999,999).
int append_utc_seconds(std::int64_t unix_us, std::string& out);

}  // namespace rowpump
