#include "handler/run_command.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "process/child_process.hpp"

namespace rowpump::handler {

namespace {

// Bytes of the command's stderr kept for the failure text (the end is where the reason usually is).
constexpr std::size_t stderr_tail_bytes = 2000;

// Copies what the command wrote to its stderr to ours, keeping the end of it. False at end of file.
bool copy_stderr(const process::Fd& from, std::string& tail) {
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(from.get(), buffer, sizeof buffer);
        if (got == 0) return false;
        if (got < 0) return errno == EAGAIN || errno == EINTR;
        if (::write(STDERR_FILENO, buffer, static_cast<std::size_t>(got)) < 0) {
            // Our own stderr is gone: keep the tail for the failure text anyway.
        }
        tail.append(buffer, static_cast<std::size_t>(got));
        if (tail.size() > 2 * stderr_tail_bytes) tail.erase(0, tail.size() - stderr_tail_bytes);
    }
}

}  // namespace

CommandResult run_command(const std::string& command, std::string_view input, const std::vector<std::string>& environment,
                          std::chrono::milliseconds tick_interval, const std::function<void()>& tick) {
    process::SpawnOptions spawn;
    spawn.pipe_stderr = true;
    spawn.environment = environment;
    process::ChildProcess child(command, spawn);

    std::string tail;
    std::size_t written = 0;
    if (input.empty()) child.stdin_write.reset();
    tick_interval = std::max(tick_interval, std::chrono::milliseconds(10));
    auto next_tick = std::chrono::steady_clock::now() + tick_interval;
    for (bool running = true; running;) {
        pollfd fds[3] = {{child.exit_fd(), POLLIN, 0},
                         {child.stderr_read.get(), POLLIN, 0},
                         {child.stdin_write.get(), POLLOUT, 0}};
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - std::chrono::steady_clock::now());
        ::poll(fds, 3, static_cast<int>(std::max<long>(wait.count(), 0)));
        if (fds[1].revents != 0 && !copy_stderr(child.stderr_read, tail)) child.stderr_read.reset();
        if (fds[2].revents != 0) {
            const ssize_t sent = ::write(child.stdin_write.get(), input.data() + written, input.size() - written);
            // EPIPE: the command exited or closed its stdin without reading it all; its exit status says
            // whether that was fine.
            if (sent > 0) written += static_cast<std::size_t>(sent);
            if ((sent < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) child.stdin_write.reset();
        }
        if (fds[0].revents != 0) running = false;
        if (std::chrono::steady_clock::now() >= next_tick) {
            if (tick) tick();
            next_tick = std::chrono::steady_clock::now() + tick_interval;
        }
    }
    // What the command wrote before it exited (a background child of it may keep the pipe open: do not
    // wait for end of file).
    if (child.stderr_read.open()) copy_stderr(child.stderr_read, tail);

    const int status = child.wait();
    CommandResult result;
    result.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!result.succeeded) {
        if (tail.size() > stderr_tail_bytes) tail.erase(0, tail.size() - stderr_tail_bytes);
        result.failure = process::describe_exit(status, tail);
    }
    return result;
}

}  // namespace rowpump::handler
