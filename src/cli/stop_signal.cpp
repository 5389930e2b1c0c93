#include "cli/stop_signal.hpp"

#include <csignal>
#include <unistd.h>

namespace rowpump::cli {

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_stop_signal(int signal) {
    if (stop_requested.exchange(true)) _exit(128 + signal);
}

}  // namespace

const std::atomic<bool>& install_stop_signals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return stop_requested;
}

}  // namespace rowpump::cli
