#pragma once
// SIGINT and SIGTERM request a clean stop: workers finish the pages they hold, the summary says where
// each range stopped, and the process exits 3. A second signal exits at once.
#include <atomic>

namespace rowpump::cli {

const std::atomic<bool>& install_stop_signals();

}  // namespace rowpump::cli
