#pragma once
// Fields of a SinkSpec and a TaskSpec that a job or a bulk enqueue derives from its other options: the
// layout from the format, the priority lists from the route's levels, the task's queue from the sink's
// (a worker format's own when the sink names none). The library fills them in on its own copy only; a
// value the caller set that disagrees is refused here, never silently replaced.
#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {

// Throws UsageError naming the field. `route_levels`: the route's level names, or nullptr when the
// caller's priority_lists are the ones used (BulkEnqueuer).
void check_derived_fields(const SinkSpec& sink, Format format, const TaskSpec& task,
                          const std::vector<std::string>* route_levels);

}  // namespace rowpump
