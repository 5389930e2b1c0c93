#include "cli/stop_signal.hpp"

#include <csignal>
#include <cstring>
#include <unistd.h>

namespace rowpump::cli {

namespace {

std::atomic<bool> stop_requested{false};

// Only async-signal-safe calls in here: write(2) and _exit(2).
void say(const char* text) {
    const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

const char* first_message = "";
const char* second_message = "";

extern "C" void on_stop_signal(int signal) {
    if (stop_requested.exchange(true)) {
        say(second_message);
        _exit(128 + signal);
    }
    say(first_message);
}

}  // namespace

const std::atomic<bool>& install_stop_signals(const char* on_first, const char* on_second) {
    first_message = on_first;
    second_message = on_second;
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return stop_requested;
}

const char* const backfill_stop_message =
    "\nrowpump: stopping: reading no more pages; writing the rows already read, then a summary of where each "
    "range stopped (a second Ctrl-C exits at once)\n";
const char* const backfill_second_stop_message =
    "\nrowpump: second stop signal: exiting now; pages in flight are not written. With a job id, --resume "
    "continues from the last checkpoint (nothing is lost or repeated); without one, a rerun writes again what "
    "this run wrote\n";
const char* const consumer_stop_message =
    "\nrowpump: stopping: claiming no more tasks; finishing the tasks in hand (a second Ctrl-C exits at once)\n";
const char* const consumer_second_stop_message =
    "\nrowpump: second stop signal: exiting now; the tasks in hand stay claimed until a reaper releases them\n";

}  // namespace rowpump::cli
