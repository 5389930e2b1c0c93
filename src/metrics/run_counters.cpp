#include "metrics/run_counters.hpp"

namespace rowpump::metrics {

RunCounters& run_counters() {
    static RunCounters counters;
    return counters;
}

}  // namespace rowpump::metrics
