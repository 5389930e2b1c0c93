#pragma once
// SIGHUP (`systemctl reload`) while `queue consume --pipe` runs: calls `on_reload` on a thread of its own
// (not in the signal handler), once per signal. Without one installed, SIGHUP keeps its default (exit).
#include <functional>
#include <thread>

namespace rowpump::cli {

class ReloadSignal {
public:
    explicit ReloadSignal(std::function<void()> on_reload);
    // Puts SIGHUP back to its default and ends the thread.
    ~ReloadSignal();
    ReloadSignal(const ReloadSignal&) = delete;
    ReloadSignal& operator=(const ReloadSignal&) = delete;

private:
    std::function<void()> on_reload_;
    int pipe_[2] = {-1, -1};  // the handler writes to [1]; the thread reads [0]
    std::thread thread_;
};

}  // namespace rowpump::cli
