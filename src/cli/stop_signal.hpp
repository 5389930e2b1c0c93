#pragma once
// SIGINT and SIGTERM request a clean stop: workers finish the pages they hold, the summary says where
// each range stopped, and the process exits 3. A second signal exits at once. Each says so on stderr
// when it arrives, so that nobody presses Ctrl-C again only because nothing seemed to happen.
#include <atomic>

namespace rowpump::cli {

// The messages must outlive the process (string literals): the handler writes them as they are.
const std::atomic<bool>& install_stop_signals(const char* on_first, const char* on_second);

extern const char* const backfill_stop_message;
extern const char* const backfill_second_stop_message;
extern const char* const consumer_stop_message;
extern const char* const consumer_second_stop_message;

}  // namespace rowpump::cli
