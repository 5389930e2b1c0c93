#include "cli/reload_signal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

namespace {

// The write end for the handler: one byte a signal (async-signal-safe), 'q' from the destructor to end.
int signal_pipe = -1;

extern "C" void on_hangup(int) {
    const int saved = errno;
    const char byte = 'h';
    const ssize_t ignored = ::write(signal_pipe, &byte, 1);
    (void)ignored;
    errno = saved;
}

}  // namespace

ReloadSignal::ReloadSignal(std::function<void()> on_reload) : on_reload_(std::move(on_reload)) {
    if (::pipe2(pipe_, O_CLOEXEC) != 0) throw Error("cannot watch for SIGHUP: pipe failed");
    signal_pipe = pipe_[1];
    thread_ = std::thread([this] {
        char byte = 0;
        for (;;) {
            const ssize_t got = ::read(pipe_[0], &byte, 1);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0 || byte == 'q') return;
            log().info("SIGHUP: every handler is restarted after the tasks it holds");
            on_reload_();
        }
    });
    struct sigaction action {};
    action.sa_handler = on_hangup;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGHUP, &action, nullptr);
}

ReloadSignal::~ReloadSignal() {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(SIGHUP, &action, nullptr);
    const char quit = 'q';
    const ssize_t ignored = ::write(pipe_[1], &quit, 1);
    (void)ignored;
    thread_.join();
    signal_pipe = -1;
    ::close(pipe_[0]);
    ::close(pipe_[1]);
}

}  // namespace rowpump::cli
