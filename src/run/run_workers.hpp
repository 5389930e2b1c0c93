#pragma once
// A job's workers, each on a thread of its own, in a oneTBB arena of the job's size.
#include <atomic>
#include <cstddef>
#include <functional>

namespace rowpump {

// Runs `work` on `workers` threads at once, whatever the core count: workers mostly block on the network.
// The first failure sets `halt` and calls `wake` (when set), so the others stop at their next page
// boundary, and is rethrown once all of them returned. Changes no process-wide setting: two jobs of one
// program run side by side, each with all its workers.
void run_workers(std::size_t workers, std::atomic<bool>& halt, const std::function<void()>& wake,
                 const std::function<void()>& work);

}  // namespace rowpump
